using System;
using System.Collections.Generic;
using System.Globalization;

namespace LowLatencyLog.Layout;

/// <summary>
/// A custom <see cref="DateTime"/> format (<c>%date{yyyy-MM-dd HH:mm:ss,fff}</c>) as log4net applies it:
/// <c>DateTime.ToString(format, DateTimeFormatInfo.InvariantInfo)</c>, rewritten as tokens so that the second's text is
/// built once and the fraction digits (<c>f</c>, <c>F</c>) are written per event.
/// </summary>
/// <remarks>
/// The tokens follow .NET's custom format rules: runs of a pattern letter, quoted text with backslash escapes,
/// <c>%x</c> for a single letter, <c>\x</c> for a literal. Numbers and the invariant names are written by hand; era,
/// offset and kind (<c>g</c>, <c>z</c>, <c>K</c>) are formatted by .NET once per second. <see cref="TryCreate"/> rejects
/// what it does not understand (a single-letter standard format, an invalid format) so the layout renders those.
/// </remarks>
internal sealed partial class CustomDateFormat : DateFormat
{
    private readonly Token[] _tokens;
    private readonly int _fractionDigits;

    // Per segment: the text of the second (start, length into the built text), or a fraction token (start = -1).
    private readonly int[] _segmentStart;
    private readonly int[] _segmentLength;

    private CustomDateFormat(List<Token> tokens)
    {
        _tokens = tokens.ToArray();
        var starts = new List<int>();
        foreach (Token token in _tokens)
        {
            if (token.IsFraction)
            {
                _fractionDigits += token.Count;
                starts.Add(-1);
            }
            else if (starts.Count == 0 || starts[starts.Count - 1] == -1)
            {
                starts.Add(0);
            }
        }

        _segmentStart = starts.ToArray();
        _segmentLength = new int[starts.Count];
    }

    public override int MaxLength => TextLength + _fractionDigits;

    private static DateTimeFormatInfo Invariant => DateTimeFormatInfo.InvariantInfo;

    /// <summary>The compiled format, or null with the reason when the layout must render it.</summary>
    public static CustomDateFormat? TryCreate(string format, out string reason)
    {
        reason = "";
        if (format.Length < 2)
        {
            reason = $"the date format \"{format}\" is a standard format, not a custom one";
            return null;
        }

        try
        {
            // log4net would fail on every event (and write nothing): leave that to it.
            _ = new DateTime(2024, 2, 29, 13, 4, 5, DateTimeKind.Local).ToString(format, Invariant);
        }
        catch (FormatException)
        {
            reason = $"the date format \"{format}\" is not valid";
            return null;
        }

        List<Token>? tokens = Tokenize(format);
        if (tokens == null)
        {
            reason = $"the date format \"{format}\" is not understood";
            return null;
        }

        return new CustomDateFormat(tokens);
    }

    public override int Render(char[] chars, int index, long ticks)
    {
        int begin = index;
        int segment = 0;
        Token[] tokens = _tokens;
        for (int i = 0; i < tokens.Length; i++)
        {
            Token token = tokens[i];
            if (!token.IsFraction)
            {
                if (i == 0 || tokens[i - 1].IsFraction)
                {
                    index = CopyText(_segmentStart[segment], _segmentLength[segment], chars, index);
                    segment++;
                }

                continue;
            }

            segment++;
            long fraction = ticks % TimeSpan.TicksPerSecond;
            for (int d = token.Count; d < 7; d++)
            {
                fraction /= 10;
            }

            int digits = token.Count;
            if (token.Kind == TokenKind.FractionTrimmed)
            {
                while (digits > 0 && fraction % 10 == 0)
                {
                    fraction /= 10;
                    digits--;
                }

                if (digits == 0)
                {
                    // .NET drops a decimal point left without digits.
                    if (index > begin && chars[index - 1] == '.')
                    {
                        index--;
                    }

                    continue;
                }
            }

            index = Digits.WritePadded(chars, index, (int)fraction, digits);
        }

        return index;
    }

    protected override void Build(DateTime time)
    {
        int segment = 0;
        bool open = false;
        foreach (Token token in _tokens)
        {
            if (token.IsFraction)
            {
                if (open)
                {
                    _segmentLength[segment] = TextLength - _segmentStart[segment];
                    segment++;
                    open = false;
                }

                segment++;
                continue;
            }

            if (!open)
            {
                _segmentStart[segment] = TextLength;
                open = true;
            }

            BuildToken(token, time);
        }

        if (open)
        {
            _segmentLength[segment] = TextLength - _segmentStart[segment];
        }
    }

    private void BuildToken(Token token, DateTime time)
    {
        int count = token.Count;
        switch (token.Kind)
        {
            case TokenKind.Literal:
                Append(token.Text);
                break;
            case TokenKind.Year:
                AppendNumber(count <= 2 ? time.Year % 100 : time.Year, count);
                break;
            case TokenKind.Month:
                AppendNumber(time.Month, count);
                break;
            case TokenKind.MonthName:
                Append(count == 3 ? Invariant.GetAbbreviatedMonthName(time.Month) : Invariant.GetMonthName(time.Month));
                break;
            case TokenKind.Day:
                AppendNumber(time.Day, count);
                break;
            case TokenKind.DayName:
                Append(count == 3 ? Invariant.GetAbbreviatedDayName(time.DayOfWeek) : Invariant.GetDayName(time.DayOfWeek));
                break;
            case TokenKind.Hour12:
                int hour = time.Hour % 12;
                AppendNumber(hour == 0 ? 12 : hour, Math.Min(count, 2));
                break;
            case TokenKind.Hour24:
                AppendNumber(time.Hour, Math.Min(count, 2));
                break;
            case TokenKind.Minute:
                AppendNumber(time.Minute, Math.Min(count, 2));
                break;
            case TokenKind.Second:
                AppendNumber(time.Second, Math.Min(count, 2));
                break;
            case TokenKind.AmPm:
                string designator = time.Hour < 12 ? Invariant.AMDesignator : Invariant.PMDesignator;
                if (count >= 2)
                {
                    Append(designator);
                }
                else if (designator.Length > 0)
                {
                    Append(designator[0]);
                }

                break;
            case TokenKind.OffsetAfterDate:
                string dated = time.ToString(token.Text, Invariant);
                Append(dated.Substring(dated.IndexOf(AfterDateMark) + 1));
                break;
            default:
                // Era, offset, kind: rare; .NET formats them, once per second.
                Append(time.ToString(token.Text, Invariant));
                break;
        }
    }
}
