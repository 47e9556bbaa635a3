#if NET8_0_OR_GREATER
using System;
#endif
using System.Globalization;
using LowLatencyLog.Text;

namespace LowLatencyLog.Layout;

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
    public override bool TryWriteUtf8(Span<byte> bytes, ref int position, LayoutEvent loggingEvent) =>
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
