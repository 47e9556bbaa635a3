using System;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Text;

namespace LowLatencyLog.Layout;

/// <summary>
/// <c>%date</c> (local time) and <c>%utcdate</c>. The text of the event's second is built once and reused for every
/// event in the same second; only the fraction (milliseconds, or the <c>f</c>/<c>F</c> digits of a custom format) is
/// written per event, by hand.
/// </summary>
/// <remarks>
/// <para>The cache is keyed on the event's UTC second and the local time is derived from it with an offset that was
/// checked to hold over that whole second, so a DST change or midnight never reuses a stale text: the date text is
/// always built from the very <see cref="DateTime"/> log4net's converter formats (<see cref="LoggingEvent.TimeStamp"/>
/// or <see cref="LoggingEvent.TimeStampUtc"/>). A second in which the offset changes is not cached.</para>
/// </remarks>
internal sealed class DatePart : LayoutPart
{
    private static readonly Type DeclaringType = typeof(DatePart);

    private readonly bool _utc;
    private readonly DateFormat _format;
    private int _maxLength;
    private string? _suffix;
    private int _suffixLength;

    // The cached second: its UTC second, the Kind of the UTC stamp, and local minus UTC ticks over that second.
    private long _second = long.MinValue;
    private DateTimeKind _kind;
    private long _offset;
    private bool _valid;

#if NET8_0_OR_GREATER
    private char[] _scratch = new char[64]; // the date's chars, before they are encoded into the writer's bytes
    private byte[]? _suffixUtf8;
#endif

    public DatePart(DateFormat format, bool utc)
    {
        _format = format;
        _utc = utc;
    }

    public override bool Direct => true;

    public override void Write(LayoutBuffer writer, LayoutEvent loggingEvent)
    {
        if (!Time(loggingEvent, out long time))
        {
            writer.Append(_suffix);
            return;
        }

        char[] chars = writer.Reserve(_maxLength + _suffixLength);
        writer.SetLength(Render(chars, writer.Length, time));
    }

    public override void WriteDirect(EventBufferWriter writer, LayoutEvent loggingEvent)
    {
        if (!Time(loggingEvent, out long time))
        {
            writer.Write(_suffix);
            return;
        }

        int most = _maxLength + _suffixLength;
        if (most > EventBufferWriter.MaxReserve)
        {
            var text = new char[most]; // a custom format thousands of chars long
            writer.Write(text, 0, Render(text, 0, time));
            return;
        }

        char[] chars = writer.Reserve(most, out int index);
        writer.Advance(Render(chars, index, time) - index);
    }

#if NET8_0_OR_GREATER
    public override bool TryWriteUtf8(Span<byte> bytes, ref int position, LayoutEvent loggingEvent)
    {
        if (!Time(loggingEvent, out long time))
        {
            return Utf8Text.TryPut(_suffix, bytes, ref position);
        }

        // log4net's own formats from the second's bytes; any other through its chars.
        int at = position;
        if (_format.TryRenderUtf8(bytes, ref at, time) &&
            (_suffixLength == 0 || (_suffixUtf8 != null && Utf8Text.TryPut(_suffixUtf8, bytes, ref at))))
        {
            position = at;
            return true;
        }

        int most = _maxLength + _suffixLength;
        if (most > _scratch.Length)
        {
            if (most > EventBufferWriter.MaxReserve)
            {
                return false;
            }

            _scratch = new char[most];
        }

        return Utf8Text.TryPut(new ReadOnlySpan<char>(_scratch, 0, Render(_scratch, 0, time)), bytes, ref position);
    }
#endif

    public override bool TakeSuffix(string? text)
    {
        if (_suffix != null)
        {
            return false;
        }

        _suffix = text;
        _suffixLength = text?.Length ?? 0;
#if NET8_0_OR_GREATER
        _suffixUtf8 = EventBufferWriter.PreEncode(text);
#endif
        return true;
    }

    /// <summary>The date, then the literal that follows it in the pattern; returns the index after them.</summary>
    private int Render(char[] chars, int index, long time)
    {
        int end = _format.Render(chars, index, time);
        if (_suffixLength > 0)
        {
            _suffix!.CopyTo(0, chars, end, _suffixLength);
            end += _suffixLength;
        }

        return end;
    }

    /// <summary>The ticks to write (local or UTC); false when the date cannot be formatted (as log4net: nothing is written).</summary>
    private bool Time(LayoutEvent loggingEvent, out long time)
    {
        DateTime utc = loggingEvent.TimeStampUtc;
        long ticks = utc.Ticks;
        long second = ticks / TimeSpan.TicksPerSecond;
        if (second == _second && utc.Kind == _kind && _valid)
        {
            time = ticks + _offset;
            return true;
        }

        return Miss(loggingEvent, utc, second, out time);
    }

    private bool Miss(LayoutEvent loggingEvent, DateTime utc, long second, out long time)
    {
        _valid = false;
        try
        {
            DateTime stamp = _utc ? utc : loggingEvent.TimeStamp;
            time = stamp.Ticks;
            long offset = time - utc.Ticks;
            bool valid = _utc || (offset % TimeSpan.TicksPerSecond == 0 &&
                OffsetAt(second * TimeSpan.TicksPerSecond, utc.Kind) == offset &&
                OffsetAt(second * TimeSpan.TicksPerSecond + TimeSpan.TicksPerSecond - 1, utc.Kind) == offset);
            _format.BuildSecond(stamp);
            _maxLength = _format.MaxLength;

            _second = second;
            _kind = utc.Kind;
            _offset = offset;
            _valid = valid;
            return true;
        }
        catch (Exception ex)
        {
            LogLog.Error(DeclaringType, "Error occurred while converting date.", ex);
            time = 0;
            return false;
        }
    }

    private static long OffsetAt(long utcTicks, DateTimeKind kind) => new DateTime(utcTicks, kind).ToLocalTime().Ticks - utcTicks;
}

/// <summary>How a date is written: the part that changes once a second, built by <see cref="BuildSecond"/>, and the rest.</summary>
internal abstract class DateFormat
{
    private char[] _text = new char[64];
    private int _textLength;

    /// <summary>The most chars <see cref="Render"/> writes for the second last built.</summary>
    public abstract int MaxLength { get; }

    protected int TextLength => _textLength;

    /// <summary>Builds the text that holds for the whole second of <paramref name="time"/>.</summary>
    public void BuildSecond(DateTime time)
    {
        _textLength = 0;
#if NET8_0_OR_GREATER
        _utf8Length = -1;
#endif
        Build(time);
    }

    /// <summary>Writes the date of <paramref name="ticks"/> (in the second last built) at <paramref name="index"/>; returns the new index.</summary>
    public abstract int Render(char[] chars, int index, long ticks);

#if NET8_0_OR_GREATER
    private byte[] _utf8 = new byte[64];
    private int _utf8Length = -1; // -1: not encoded since the second was built

    /// <summary>
    /// Writes the date of <paramref name="ticks"/> as UTF-8 at <paramref name="position"/> and moves it on; false, with
    /// the position unchanged, when this format only writes chars or the room is short.
    /// </summary>
    public virtual bool TryRenderUtf8(Span<byte> bytes, ref int position, long ticks) => false;

    /// <summary>The second's text in UTF-8, encoded once per second.</summary>
    protected ReadOnlySpan<byte> SecondUtf8
    {
        get
        {
            if (_utf8Length < 0)
            {
                int most = System.Text.Encoding.UTF8.GetMaxByteCount(_textLength);
                if (_utf8.Length < most)
                {
                    _utf8 = new byte[most];
                }

                _utf8Length = System.Text.Encoding.UTF8.GetBytes(_text, 0, _textLength, _utf8, 0);
            }

            return new ReadOnlySpan<byte>(_utf8, 0, _utf8Length);
        }
    }
#endif

    protected abstract void Build(DateTime time);

    protected int CopyText(int start, int length, char[] chars, int index)
    {
#if NET8_0_OR_GREATER
        _text.AsSpan(start, length).CopyTo(chars.AsSpan(index));
#else
        Array.Copy(_text, start, chars, index, length);
#endif
        return index + length;
    }

    protected void Append(char c)
    {
        Ensure(1);
        _text[_textLength++] = c;
    }

    protected void Append(string? s)
    {
        if (s == null)
        {
            return;
        }

        Ensure(s.Length);
        s.CopyTo(0, _text, _textLength, s.Length);
        _textLength += s.Length;
    }

    /// <summary>A non-negative number, zero-padded to <paramref name="width"/> digits (1: no padding).</summary>
    protected void AppendNumber(int value, int width)
    {
        Ensure(Math.Max(width, 10));
        _textLength = Digits.WritePadded(_text, _textLength, value, width);
    }

    private void Ensure(int count)
    {
        if (_text.Length - _textLength < count)
        {
            Array.Resize(ref _text, Math.Max(_text.Length * 2, _textLength + count));
        }
    }
}

/// <summary>
/// log4net's own formatters: <c>ISO8601</c> (<c>yyyy-MM-dd HH:mm:ss,fff</c>, also the default), <c>ABSOLUTE</c>
/// (<c>HH:mm:ss,fff</c>) and <c>DATE</c> (<c>dd MMM yyyy HH:mm:ss,fff</c>, invariant month names). As in log4net the
/// year is not padded and the milliseconds follow a comma.
/// </summary>
internal sealed class Log4netDateFormat : DateFormat
{
    public enum Kind
    {
        Iso8601,
        Absolute,
        Date,
    }

    private readonly Kind _kind;

    public Log4netDateFormat(Kind kind) => _kind = kind;

    public override int MaxLength => TextLength + 4;

    public override int Render(char[] chars, int index, long ticks)
    {
        index = CopyText(0, TextLength, chars, index);
        int millis = (int)(ticks / TimeSpan.TicksPerMillisecond % 1000);
        chars[index] = ',';
        chars[index + 1] = (char)('0' + millis / 100);
        chars[index + 2] = (char)('0' + millis / 10 % 10);
        chars[index + 3] = (char)('0' + millis % 10);
        return index + 4;
    }

#if NET8_0_OR_GREATER
    public override bool TryRenderUtf8(Span<byte> bytes, ref int position, long ticks)
    {
        ReadOnlySpan<byte> second = SecondUtf8;
        int at = position;
        if (bytes.Length - at < second.Length + 4)
        {
            return false;
        }

        second.CopyTo(bytes.Slice(at));
        at += second.Length;
        int millis = (int)(ticks / TimeSpan.TicksPerMillisecond % 1000);
        bytes[at] = (byte)',';
        bytes[at + 1] = (byte)('0' + millis / 100);
        bytes[at + 2] = (byte)('0' + millis / 10 % 10);
        bytes[at + 3] = (byte)('0' + millis % 10);
        position = at + 4;
        return true;
    }
#endif

    protected override void Build(DateTime time)
    {
        switch (_kind)
        {
            case Kind.Iso8601:
                AppendNumber(time.Year, 1);
                Append('-');
                AppendNumber(time.Month, 2);
                Append('-');
                AppendNumber(time.Day, 2);
                Append(' ');
                break;
            case Kind.Date:
                AppendNumber(time.Day, 2);
                Append(' ');
                Append(System.Globalization.DateTimeFormatInfo.InvariantInfo.GetAbbreviatedMonthName(time.Month));
                Append(' ');
                AppendNumber(time.Year, 1);
                Append(' ');
                break;
        }

        AppendNumber(time.Hour, 2);
        Append(':');
        AppendNumber(time.Minute, 2);
        Append(':');
        AppendNumber(time.Second, 2);
    }
}
