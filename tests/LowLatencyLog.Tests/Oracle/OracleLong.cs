using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using log4net;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>Bursts of calls into a small buffer, and the comparison of what an async appender under Discard wrote.</summary>
internal static class OracleLong
{
    /// <summary>The text of the line ours writes for discarded events.</summary>
    public const string DiscardReport = "were discarded because the buffer";

    /// <summary>Levels of a burst, by call index: mostly INFO and DEBUG (which Discard may drop), some WARN and ERROR.</summary>
    private static readonly string[] BurstLevels = { "Info", "Info", "Debug", "Info", "Warn", "Info", "Error" };

    [System.Runtime.CompilerServices.MethodImpl(OracleLocation.KeepFrames)]
    public static void RunBurst(ILog log, int count)
    {
        for (int i = 0; i < count; i++)
        {
            string message = "burst " + i.ToString(CultureInfo.InvariantCulture);
            switch (BurstLevels[i % BurstLevels.Length])
            {
                case "Debug": log.Debug(message); break;
                case "Info": log.Info(message); break;
                case "Warn": log.Warn(message); break;
                default: log.Error(message); break;
            }
        }
    }

    public static string BurstCSharp(string target, int count) =>
        $"for (int i = 0; i < {count}; i++) {target}.<Info, Info, Debug, Info, Warn, Info, Error by i % 7>(\"burst \" + i);";

    /// <summary>
    /// Under Discard: our lines (less the discard reports) in the oracle's order, every WARN, ERROR and FATAL line of
    /// the oracle's among them. Null when so; <paramref name="lines"/> counts ours (the report lines left out, as a
    /// child's filters may drop them: the internal log's report is checked instead).
    /// </summary>
    public static string? LossyDifference(byte[] expected, byte[] actual, out int lines, out bool missing)
    {
        List<string> oracle = Lines(expected);
        List<string> ours = Lines(actual);
        ours.RemoveAll(IsReport);
        lines = ours.Count;
        missing = ours.Count < oracle.Count;
        int at = 0;
        for (int i = 0; i < ours.Count; i++)
        {
            while (at < oracle.Count && oracle[at] != ours[i])
            {
                at++;
            }

            if (at == oracle.Count)
            {
                return $"under overflow=Discard, our line {i + 1} is not in the oracle's file in this order: {ArgSpec.Literal(ours[i])}";
            }

            at++;
        }

        var kept = oracle.Where(Severe).ToList();
        var ourSevere = ours.Where(Severe).ToList();
        if (!kept.SequenceEqual(ourSevere))
        {
            string? first = kept.Except(ourSevere).FirstOrDefault();
            return $"under overflow=Discard, a WARN, ERROR or FATAL line is missing ({kept.Count} in the oracle's file, {ourSevere.Count} in ours), e.g. {ArgSpec.Literal(first ?? "")}";
        }

        return null;
    }

    /// <summary>The report, by its text or (for a child that writes no message) its logger, the appender's type.</summary>
    private static bool IsReport(string line) =>
        line.Contains(DiscardReport, StringComparison.Ordinal) || line.Contains(" LowLatencyLog.Appender.", StringComparison.Ordinal);

    private static bool Severe(string line) =>
        line.StartsWith("WARN ", StringComparison.Ordinal) || line.StartsWith("ERROR ", StringComparison.Ordinal) || line.StartsWith("FATAL ", StringComparison.Ordinal);

    private static List<string> Lines(byte[] bytes) =>
        Encoding.UTF8.GetString(bytes).Split('\n').Where(l => l.Length > 0).ToList();
}
