using System.Globalization;
using System.Text.RegularExpressions;

namespace LowLatencyLog.ShippingTest;

/// <summary>The text of a numbered event and its parsing back on the receiving side.</summary>
public static class Events
{
    private static readonly Regex Pattern = new Regex(@"r(\d+) p(\d+) n(\d+)", RegexOptions.CultureInvariant | RegexOptions.Compiled);

    /// <summary>About 60 characters: run, producer and sequence number, then filler.</summary>
    public static string Text(int run, int producer, long sequence) =>
        string.Create(CultureInfo.InvariantCulture, $"r{run} p{producer} n{sequence:D9} shipped-event-filler-abcdefghijklmnopqrstuv");

    /// <summary>Reads run, producer and sequence out of a received line; false if the line holds no event.</summary>
    public static bool TryParse(string line, out int run, out int producer, out long sequence)
    {
        Match m = Pattern.Match(line);
        run = producer = 0;
        sequence = 0;
        if (!m.Success)
        {
            return false;
        }

        run = int.Parse(m.Groups[1].Value, CultureInfo.InvariantCulture);
        producer = int.Parse(m.Groups[2].Value, CultureInfo.InvariantCulture);
        sequence = long.Parse(m.Groups[3].Value, CultureInfo.InvariantCulture);
        return true;
    }
}
