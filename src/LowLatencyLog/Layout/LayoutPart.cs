using System;
using System.Globalization;
using System.IO;
using System.Text;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.IO;

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
    /// <paramref name="bytes"/> (the writer's buffer) and moves the position on; false, with the position unchanged,
    /// when it cannot here (too little room, text only the writer can encode): the caller then uses
    /// <see cref="WriteDirect"/>.
    /// </summary>
    public virtual bool TryWriteUtf8(byte[] bytes, ref int position, LayoutEvent loggingEvent) => false;
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
    public override bool TryWriteUtf8(byte[] bytes, ref int position, LayoutEvent loggingEvent) =>
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

/// <summary>
/// <c>%logger</c> / <c>%c</c>, with log4net's precision rule: <c>{n}</c> keeps the last n dot-separated parts, a
/// trailing dot is kept after them.
/// </summary>
/// <remarks>
/// log4net finds the dots with culture-sensitive string searches. For a name of printable ASCII that is the same as
/// an ordinal search in almost every culture, so such names are cut by hand and written from their chars; any other
/// name, and any name in a culture whose searches differ (Thai ignores punctuation), takes log4net's own calls, so the
/// text is the same in every case. The cut is remembered for the last name and culture seen.
/// </remarks>
internal sealed class LoggerPart : LayoutPart
{
    private const string Dot = ".";

    private readonly int _precision;
    private string? _lastName;
    private CultureInfo? _lastCulture;
    private int _lastStart;
    private int _lastCount;
    private string? _lastText; // the cut made by log4net's calls, when the last name needed them

    // The cuts made by log4net's calls for the last few names that needed them, so that loggers taking turns do not
    // allocate a substring per event.
    private const int CultureCuts = 8;
    private readonly string?[] _cutNames = new string?[CultureCuts];
    private readonly CultureInfo?[] _cutCultures = new CultureInfo?[CultureCuts];
    private readonly string?[] _cutTexts = new string?[CultureCuts];
    private int _nextCut;

    private CultureInfo? _checkedCulture;
    private bool _cultureCutsOrdinally;

    public LoggerPart(int precision)
        : base(precision <= 0 ? PartKind.Logger : PartKind.Other) => _precision = precision;

    public override bool Direct => true;

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent)
    {
        if (TextOf(loggingEvent, out int start, out int count) is { } text)
        {
            char[] chars = writer.Reserve(count);
            text.CopyTo(start, chars, writer.Length, count); // the kept parts, and the trailing dot right after them
            writer.Advance(count);
        }
    }

    public override void WriteDirect(EventBufferWriter writer, LayoutEvent loggingEvent)
    {
        if (TextOf(loggingEvent, out int start, out int count) is not { } text)
        {
            return;
        }

        if (start == 0 && count == text.Length)
        {
            writer.Write(text);
            return;
        }

        if (count > EventBufferWriter.MaxReserve)
        {
            writer.Write(text.Substring(start, count));
            return;
        }

        char[] chars = writer.Reserve(count, out int index);
        text.CopyTo(start, chars, index, count);
        writer.Advance(count);
    }

#if NET8_0_OR_GREATER
    public override bool TryWriteUtf8(byte[] bytes, ref int position, LayoutEvent loggingEvent) =>
        TextOf(loggingEvent, out int start, out int count) is not { } text || Utf8Text.TryPut(text.AsSpan(start, count), bytes, ref position);
#endif

    /// <summary>
    /// What to write: <paramref name="count"/> chars from <paramref name="start"/> of the returned string, which is the
    /// name itself (whole, or cut by hand) or the cut log4net's own calls made; null for no name.
    /// </summary>
    private string? TextOf(LayoutEvent loggingEvent, out int start, out int count)
    {
        string? name = loggingEvent.LoggerName;
        start = 0;
        count = name?.Length ?? 0;
        if (_precision <= 0 || name is null || name.Length < 2)
        {
            return name;
        }

        CultureInfo culture = CultureInfo.CurrentCulture;
        if (!ReferenceEquals(name, _lastName) || !ReferenceEquals(culture, _lastCulture))
        {
            _lastName = null;
            if (CutsOrdinally(culture) && IsPrintableAscii(name))
            {
                Cut(name, _precision, out _lastStart, out _lastCount);
                _lastText = null;
            }
            else
            {
                _lastText = CultureCut(name, culture);
            }

            _lastName = name;
            _lastCulture = culture;
        }

        if (_lastText != null)
        {
            count = _lastText.Length;
            return _lastText;
        }

        start = _lastStart;
        count = _lastCount;
        return name;
    }

    private string CultureCut(string name, CultureInfo culture)
    {
        for (int i = 0; i < CultureCuts; i++)
        {
            if (ReferenceEquals(_cutNames[i], name) && ReferenceEquals(_cutCultures[i], culture))
            {
                return _cutTexts[i]!;
            }
        }

        string text = CultureSensitiveCut(name, _precision); // may throw, as log4net's converter does
        int slot = _nextCut;
        _nextCut = (slot + 1) % CultureCuts;
        _cutNames[slot] = name;
        _cutCultures[slot] = culture;
        _cutTexts[slot] = text;
        return text;
    }

    /// <summary>Whether <paramref name="culture"/>'s searches for "." find the dots an ordinal search finds.</summary>
    private bool CutsOrdinally(CultureInfo culture)
    {
        if (!ReferenceEquals(culture, _checkedCulture))
        {
            CompareInfo compare = culture.CompareInfo;
            _cultureCutsOrdinally = compare.LastIndexOf("a.b", Dot) == 1 && compare.LastIndexOf("Ab.cd.e", Dot) == 5 &&
                compare.IsSuffix("a.", Dot) && !compare.IsSuffix("a-", Dot);
            _checkedCulture = culture;
        }

        return _cultureCutsOrdinally;
    }

    private static void Cut(string name, int precision, out int start, out int count)
    {
        int length = name.Length;
        bool trailingDot = name[length - 1] == '.';
        if (trailingDot)
        {
            length--;
        }

        int end = name.LastIndexOf('.', length - 1);
        for (int i = 1; end > 0 && i < precision; i++)
        {
            end = name.LastIndexOf('.', end - 1);
        }

        start = end + 1; // end == -1: the whole name
        count = length - start + (trailingDot ? 1 : 0);
    }

    private static string CultureSensitiveCut(string name, int precision)
    {
        int length = name.Length;
        string trailingDot = string.Empty;
#pragma warning disable CA1310, CA1307 // the culture-sensitive overloads log4net calls, on purpose
        if (name.EndsWith(Dot))
        {
            trailingDot = Dot;
            name = name.Substring(0, length - 1);
            length--;
        }

        int end = name.LastIndexOf(Dot);
#pragma warning restore CA1310, CA1307
        for (int i = 1; end > 0 && i < precision; i++)
        {
            end = name.LastIndexOf('.', end - 1);
        }

        return end == -1 ? name + trailingDot : name.Substring(end + 1, length - end - 1) + trailingDot;
    }

    private static bool IsPrintableAscii(string name)
    {
        foreach (char c in name)
        {
            if (c < ' ' || c > '~')
            {
                return false;
            }
        }

        return true;
    }
}

/// <summary>
/// <c>%timestamp</c> / <c>%r</c>: milliseconds since log4net's start, computed as log4net computes it and written
/// with invariant digits.
/// </summary>
internal sealed class RelativeTimePart : LayoutPart
{
    public override bool Direct => true;

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent)
    {
        char[] chars = writer.Reserve(24);
        writer.SetLength(Digits.WriteInt64(Value(loggingEvent), chars, writer.Length));
    }

    public override void WriteDirect(EventBufferWriter writer, LayoutEvent loggingEvent)
    {
        char[] chars = writer.Reserve(24, out int index);
        writer.Advance(Digits.WriteInt64(Value(loggingEvent), chars, index) - index);
    }

#if NET8_0_OR_GREATER
    public override bool TryWriteUtf8(byte[] bytes, ref int position, LayoutEvent loggingEvent)
    {
        // Invariant digits and '-', as Digits writes them.
        if (bytes.Length - position < 24 ||
            !Value(loggingEvent).TryFormat(bytes.AsSpan(position), out int written, default, CultureInfo.InvariantCulture))
        {
            return false;
        }

        position += written;
        return true;
    }
#endif

    private static long Value(LayoutEvent loggingEvent) =>
        (long)(loggingEvent.TimeStampUtc.ToUniversalTime() - LoggingEvent.StartTimeUtc.ToUniversalTime()).TotalMilliseconds;
}

/// <summary>
/// <see cref="log4net.Layout.SimpleLayout"/>: <c>LEVEL - message</c> and the writer's newline (no level, no prefix).
/// </summary>
internal sealed class SimpleLayoutPart : LayoutPart
{
    public override bool Direct => true;

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent) => Render(writer, loggingEvent);

    public override void WriteDirect(EventBufferWriter writer, LayoutEvent loggingEvent) => Render(writer, loggingEvent);

#if NET8_0_OR_GREATER
    private static readonly byte[] Separator = Encoding.UTF8.GetBytes(" - ");

    public override bool TryWriteUtf8(byte[] bytes, ref int position, LayoutEvent loggingEvent)
    {
        // All or nothing: the writer's path writes the whole part if any piece does not fit.
        int at = position;
        ReadOnlySpan<char> message = loggingEvent.StringMessage is { } text ? text.AsSpan()
            : loggingEvent.TextMessage is { } owned ? owned.Span
            : default;
        if ((loggingEvent.StringMessage == null && loggingEvent.TextMessage == null) ||
            (loggingEvent.Level is { } level && !(Utf8Text.TryPut(level.DisplayName, bytes, ref at) && Utf8Text.TryPut(Separator, bytes, ref at))) ||
            !Utf8Text.TryPut(message, bytes, ref at) ||
            !Utf8Text.TryPut(Environment.NewLine, bytes, ref at))
        {
            return false;
        }

        position = at;
        return true;
    }
#endif

    private static void Render(TextWriter writer, LayoutEvent loggingEvent)
    {
        if (loggingEvent.Level is { } level)
        {
            writer.Write(level.DisplayName);
            writer.Write(" - ");
        }

        loggingEvent.WriteMessage(writer);
        writer.WriteLine();
    }
}

/// <summary>
/// A converter with width or truncation modifiers (<c>%-5level</c>, <c>%20.30logger</c>): rendered in place, then the
/// last <c>max</c> chars are kept (log4net truncates from the left) and spaces pad it to <c>min</c>, on the right when
/// left-aligned.
/// </summary>
internal sealed class PaddedPart : LayoutPart
{
    private readonly LayoutPart _inner;
    private readonly int _min;
    private readonly int _max;
    private readonly bool _leftAlign;

    public PaddedPart(LayoutPart inner, int min, int max, bool leftAlign)
    {
        _inner = inner;
        _min = min;
        _max = max;
        _leftAlign = leftAlign;
    }

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent)
    {
        int start = writer.BeginCapture();
        _inner.Write(writer, loggingEvent);
        writer.EndCapture(start, _min, _max, _leftAlign);
    }
}

/// <summary>
/// A padded <c>%level</c> (<c>%-5level</c>): levels are few and their names fixed, so each level's padded text is made
/// once (by the same cut-and-pad rule) and then written like a literal.
/// </summary>
internal sealed class PaddedLevelPart : LayoutPart
{
    // log4net defines 18 levels; past this many the oldest text is replaced, so the levels in use stay remembered.
    private const int Remembered = 32;

    private readonly int _min;
    private readonly int _max;
    private readonly bool _leftAlign;
    private readonly Level?[] _levels = new Level?[Remembered];
    private readonly string?[] _texts = new string?[Remembered];
    private int _count;
    private int _nextReplaced;
    private string? _suffix;

    public PaddedLevelPart(int min, int max, bool leftAlign)
    {
        _min = min;
        _max = max;
        _leftAlign = leftAlign;
    }

    public override bool Direct => true;

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent) => writer.Append(TextOf(loggingEvent.Level));

    public override void WriteDirect(EventBufferWriter writer, LayoutEvent loggingEvent) => writer.Write(TextOf(loggingEvent.Level));

#if NET8_0_OR_GREATER
    public override bool TryWriteUtf8(byte[] bytes, ref int position, LayoutEvent loggingEvent) =>
        Utf8Text.TryPut(TextOf(loggingEvent.Level), bytes, ref position);
#endif

    public override bool TakeSuffix(string? text)
    {
        if (_suffix != null || _count > 0)
        {
            return false;
        }

        _suffix = text;
        return true;
    }

    private string TextOf(Level? level)
    {
        for (int i = 0; i < _count; i++)
        {
            if (ReferenceEquals(_levels[i], level))
            {
                return _texts[i]!;
            }
        }

        string text = Padded(level?.DisplayName ?? string.Empty) + _suffix;
        int slot = _count;
        if (slot < Remembered)
        {
            _count++;
        }
        else
        {
            slot = _nextReplaced;
            _nextReplaced = (slot + 1) % Remembered;
        }

        _texts[slot] = text;
        _levels[slot] = level;
        return text;
    }

    /// <summary><see cref="LayoutBuffer.EndCapture"/>'s rule on a string: keep the last <c>max</c> chars, pad to <c>min</c>.</summary>
    private string Padded(string text)
    {
        if (text.Length > _max)
        {
            text = text.Substring(text.Length - _max);
        }

        return text.Length >= _min ? text : _leftAlign ? text.PadRight(_min) : text.PadLeft(_min);
    }
}
