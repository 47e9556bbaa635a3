using System;
using System.IO;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Text;

namespace LowLatencyLog.Layout;

/// <summary>
/// One compiled piece of a conversion pattern: writes what the matching log4net converter writes, through the same
/// calls on the writer where the text comes from log4net (message, renderers), by hand where it is plain data.
/// </summary>
internal abstract class LayoutPart
{
    protected LayoutPart(PartKind kind = PartKind.Other, string? text = null)
    {
        Kind = kind;
        Text = text;
        Utf8 = kind == PartKind.Literal ? EventBufferWriter.PreEncode(text) : null;
    }

    /// <summary>Lets <see cref="CompiledLayout"/> write the commonest parts without a virtual call.</summary>
    public PartKind Kind { get; }

    /// <summary>A literal's text (null for other parts), read without a cast.</summary>
    public string? Text { get; }

    /// <summary>A literal's text in UTF-8, for a writer that encodes as it writes; null when it must be encoded with
    /// its neighbours (see <see cref="EventBufferWriter.PreEncode"/>).</summary>
    public byte[]? Utf8 { get; }

    public abstract void Write(LayoutBuffer writer, LayoutEvent loggingEvent);

    /// <summary>Whether <see cref="WriteDirect"/> is supported: the part can write straight into the file appender's
    /// writer, with no assembly buffer.</summary>
    public virtual bool Direct => Kind != PartKind.Other;

    /// <summary>Writes the same text as <see cref="Write"/>, straight into the file appender's writer.</summary>
    public virtual void WriteDirect(EventBufferWriter writer, LayoutEvent loggingEvent) =>
        throw new NotSupportedException($"{GetType().Name} writes through a layout buffer only.");

#if NET8_0_OR_GREATER
    /// <summary>
    /// Writes the same text as <see cref="WriteDirect"/> as UTF-8 at <paramref name="position"/> in
    /// <paramref name="bytes"/> (the room the writer handed out) and moves the position on; false, with the position
    /// unchanged, when it cannot here (too little room, text only the writer can encode): the caller then uses
    /// <see cref="WriteDirect"/>.
    /// </summary>
    public virtual bool TryWriteUtf8(Span<byte> bytes, ref int position, LayoutEvent loggingEvent) => false;
#endif

    /// <summary>
    /// Takes the literal text that follows this part, to write it with its own text (one copy fewer per event); false
    /// when the part cannot.
    /// </summary>
    public virtual bool TakeSuffix(string? text) => false;
}

internal enum PartKind : byte
{
    Other,
    Literal,
    Message,
    Level,
    Thread,
    Logger,
    Exception,
}

/// <summary>Literal text, <c>%%</c> and <c>%newline</c> (log4net merges neighbouring literals into one).</summary>
internal sealed class LiteralPart : LayoutPart
{
    public LiteralPart(string? text)
        : base(PartKind.Literal, text)
    {
    }

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent) => writer.Append(Text);
}

/// <summary><c>%level</c>: the level's display name.</summary>
internal sealed class LevelPart : LayoutPart
{
    public LevelPart()
        : base(PartKind.Level)
    {
    }

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent) => writer.Write(loggingEvent.Level?.DisplayName);
}

/// <summary><c>%thread</c>: the thread's name, or its id when it has none (log4net decides and caches it).</summary>
internal sealed class ThreadPart : LayoutPart
{
    public ThreadPart()
        : base(PartKind.Thread)
    {
    }

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent) => writer.Write(loggingEvent.ThreadName);
}

/// <summary><c>%appdomain</c>: the event's domain name.</summary>
internal sealed class AppDomainPart : LayoutPart
{
    public override bool Direct => true;

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent) => writer.Write(loggingEvent.Domain);

    public override void WriteDirect(EventBufferWriter writer, LayoutEvent loggingEvent) => writer.Write(loggingEvent.Domain);

#if NET8_0_OR_GREATER
    public override bool TryWriteUtf8(Span<byte> bytes, ref int position, LayoutEvent loggingEvent) =>
        Utf8Text.TryPut(loggingEvent.Domain, bytes, ref position);
#endif
}

/// <summary>
/// <c>%message</c>: log4net's own <see cref="LoggingEvent.WriteRenderedMessage"/>, which writes a string message as it
/// is (no allocation) and sends other objects (<c>SystemStringFormat</c> included) through the repository's renderers.
/// </summary>
internal sealed class MessagePart : LayoutPart
{
    public MessagePart()
        : base(PartKind.Message)
    {
    }

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent) => loggingEvent.WriteMessage(writer);
}

/// <summary><c>%exception</c> without an option: the exception text and a newline, nothing when there is none.</summary>
internal sealed class ExceptionPart : LayoutPart
{
    public ExceptionPart()
        : base(PartKind.Exception)
    {
    }

    // Written straight into the file appender's writer by CompiledLayout, which calls Render for this kind.
    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent) => Render(writer, loggingEvent);

    /// <summary>What log4net's <c>%exception</c> writes: the event's exception text and a newline, nothing without one.</summary>
    public static void Render(TextWriter writer, LayoutEvent loggingEvent)
    {
        string? text = loggingEvent.GetExceptionString();
        if (!string.IsNullOrEmpty(text))
        {
            writer.WriteLine(text);
        }
    }
}

/// <summary><c>%property{key}</c>, <c>%P{key}</c>, <c>%X{key}</c>, <c>%mdc{key}</c> and <c>%ndc</c> (the <c>NDC</c> property).</summary>
internal sealed class PropertyPart : LayoutPart
{
    private readonly string _key;

    public PropertyPart(string key) => _key = key;

    public override bool Direct => true;

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent) => Render(writer, loggingEvent);

    public override void WriteDirect(EventBufferWriter writer, LayoutEvent loggingEvent) => Render(writer, loggingEvent);

    private void Render(TextWriter writer, LayoutEvent loggingEvent)
    {
        object? value = loggingEvent.LookupProperty(_key);
        if (loggingEvent.Repository is { } repository)
        {
            // The repository's renderers decide the text of a non-string value, as for log4net's converter.
            repository.RendererMap.FindAndRender(value, writer);
        }
        else if (value is null)
        {
            writer.Write(SystemInfo.NullText);
        }
        else
        {
            writer.Write(value.ToString());
        }
    }
}
