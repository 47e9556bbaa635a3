using System.IO;
#if NET8_0_OR_GREATER
using System;
using System.Globalization;
using System.Text;
#endif
using log4net.Core;
using LowLatencyLog.Text;

namespace LowLatencyLog.Layout;

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
    public override bool TryWriteUtf8(Span<byte> bytes, ref int position, LayoutEvent loggingEvent)
    {
        // Invariant digits and '-', as Digits writes them.
        if (bytes.Length - position < 24 ||
            !Value(loggingEvent).TryFormat(bytes.Slice(position), out int written, default, CultureInfo.InvariantCulture))
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

    public override bool TryWriteUtf8(Span<byte> bytes, ref int position, LayoutEvent loggingEvent)
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
    public override bool TryWriteUtf8(Span<byte> bytes, ref int position, LayoutEvent loggingEvent) =>
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
