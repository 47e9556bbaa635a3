using System.Collections.Generic;

namespace LowLatencyLog.Layout;

/// <summary>The tokenizer: a custom format split by .NET's rules into literals, pattern-letter runs and fractions.</summary>
internal sealed partial class CustomDateFormat
{
    private enum TokenKind
    {
        Literal,
        Year,
        Month,
        MonthName,
        Day,
        DayName,
        Hour12,
        Hour24,
        Minute,
        Second,
        AmPm,
        Fraction,
        FractionTrimmed,
        Other,
        OffsetAfterDate,
    }

    /// <summary>Ends the throw-away date in front of an <see cref="TokenKind.OffsetAfterDate"/> token's text.</summary>
    private const char AfterDateMark = '\u0001';

    private static List<Token>? Tokenize(string format)
    {
        var tokens = new List<Token>();
        int i = 0;
        while (i < format.Length)
        {
            char c = format[i];
            switch (c)
            {
                case '\'':
                case '"':
                    var quoted = new System.Text.StringBuilder();
                    int j = i + 1;
                    bool closed = false;
                    while (j < format.Length)
                    {
                        char q = format[j++];
                        if (q == c)
                        {
                            closed = true;
                            break;
                        }

                        if (q == '\\')
                        {
                            if (j >= format.Length)
                            {
                                return null;
                            }

                            q = format[j++];
                        }

                        quoted.Append(q);
                    }

                    if (!closed)
                    {
                        return null;
                    }

                    tokens.Add(new Token(TokenKind.Literal, 0, quoted.ToString()));
                    i = j;
                    break;
                case '%':
                    if (i + 1 >= format.Length || format[i + 1] == '%' || format[i + 1] == '\'' || format[i + 1] == '"' || format[i + 1] == '\\')
                    {
                        return null;
                    }

                    if (!AddPattern(tokens, format[i + 1], 1))
                    {
                        return null;
                    }

                    i += 2;
                    break;
                case '\\':
                    if (i + 1 >= format.Length)
                    {
                        return null;
                    }

                    tokens.Add(new Token(TokenKind.Literal, 0, format[i + 1].ToString()));
                    i += 2;
                    break;
                default:
                    int run = 1;
                    while (i + run < format.Length && format[i + run] == c)
                    {
                        run++;
                    }

                    if (IsPatternLetter(c))
                    {
                        if (!AddPattern(tokens, c, run))
                        {
                            return null;
                        }

                        i += run;
                    }
                    else
                    {
                        AddPattern(tokens, c, 1);
                        i++;
                    }

                    break;
            }
        }

        return tokens;
    }

    private static bool IsPatternLetter(char c) => "dfFghHKmMstyz".IndexOf(c) >= 0;

    private static bool AddPattern(List<Token> tokens, char c, int count)
    {
        switch (c)
        {
            case 'y':
                tokens.Add(new Token(TokenKind.Year, count, null));
                return true;
            case 'M':
                tokens.Add(new Token(count <= 2 ? TokenKind.Month : TokenKind.MonthName, count, null));
                return true;
            case 'd':
                tokens.Add(new Token(count <= 2 ? TokenKind.Day : TokenKind.DayName, count, null));
                return true;
            case 'h':
                tokens.Add(new Token(TokenKind.Hour12, count, null));
                return true;
            case 'H':
                tokens.Add(new Token(TokenKind.Hour24, count, null));
                return true;
            case 'm':
                tokens.Add(new Token(TokenKind.Minute, count, null));
                return true;
            case 's':
                tokens.Add(new Token(TokenKind.Second, count, null));
                return true;
            case 't':
                tokens.Add(new Token(TokenKind.AmPm, count, null));
                return true;
            case 'f':
            case 'F':
                if (count > 7)
                {
                    return false;
                }

                tokens.Add(new Token(c == 'f' ? TokenKind.Fraction : TokenKind.FractionTrimmed, count, null));
                return true;
            case 'z' when tokens.Exists(t => t.Kind is TokenKind.Year or TokenKind.Month or TokenKind.MonthName or TokenKind.Day or TokenKind.DayName):
                // .NET writes an offset after a day, month or year with the time's own offset; in a format without one
                // before it, a time on 1 January of year 1 gets today's offset. Formatted alone it would be the latter,
                // so it is formatted after a day, which is cut off again.
                tokens.Add(new Token(TokenKind.OffsetAfterDate, count, "d'" + AfterDateMark + "'" + new string(c, count)));
                return true;
            case 'g':
            case 'z':
            case 'K':
                string run = new string(c, count);
                tokens.Add(new Token(TokenKind.Other, count, run.Length == 1 ? "%" + run : run));
                return true;
            case ':':
                tokens.Add(new Token(TokenKind.Literal, 0, Invariant.TimeSeparator));
                return true;
            case '/':
                tokens.Add(new Token(TokenKind.Literal, 0, Invariant.DateSeparator));
                return true;
            default:
                tokens.Add(new Token(TokenKind.Literal, 0, c.ToString()));
                return true;
        }
    }

    private readonly struct Token
    {
        public Token(TokenKind kind, int count, string? text)
        {
            Kind = kind;
            Count = count;
            Text = text;
        }

        public TokenKind Kind { get; }

        public int Count { get; }

        public string? Text { get; }

        public bool IsFraction => Kind == TokenKind.Fraction || Kind == TokenKind.FractionTrimmed;
    }
}
