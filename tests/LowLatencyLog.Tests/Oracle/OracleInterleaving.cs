using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>
/// The oracle's files as the steps left them: each file's length after each step (everything is written at the call
/// there), so that each event of the final file is known by the step that wrote it.
/// </summary>
internal sealed class StepTrace
{
    private readonly List<string> _directories;
    private readonly List<Dictionary<string, long>> _lengths = new List<Dictionary<string, long>>();
    private readonly Dictionary<string, int[]> _labels = new Dictionary<string, int[]>(StringComparer.Ordinal);

    public StepTrace(List<string> directories) => _directories = directories;

    /// <summary>Records the lengths after step <c>n</c>: called after each step in order, then after the shutdown.</summary>
    public void After()
    {
        var lengths = new Dictionary<string, long>(StringComparer.Ordinal);
        foreach (string directory in _directories)
        {
            foreach (string path in Directory.GetFiles(directory, "*", SearchOption.AllDirectories))
            {
                lengths[path] = new FileInfo(path).Length;
            }
        }

        _lengths.Add(lengths);
    }

    /// <summary>Labels each event (each mark) of the file at <paramref name="path"/> with the step that wrote it.</summary>
    public void Read(string name, string path, byte[] raw)
    {
        var labels = new List<int>();
        foreach (int at in OracleInterleaving.Marks(raw))
        {
            int step = _lengths.FindIndex(l => l.TryGetValue(path, out long length) && length > at);
            labels.Add(step < 0 ? _lengths.Count : step);
        }

        _labels[name] = labels.ToArray();
    }

    public int[] Labels(string name) => _labels.TryGetValue(name, out int[]? labels) ? labels : Array.Empty<int>();
}

/// <summary>
/// Compares a file written while threads logged at the same time. log4net defines each thread's order, and the order
/// of the steps (a step's events reach the appender after the previous step's and before the next's), not the
/// interleaving of threads within a concurrent step. Each event starts with <see cref="OracleConcurrent.Mark"/>: events
/// are cut there, whatever lines they span, and grouped by thread.
/// </summary>
internal static class OracleInterleaving
{
    private static readonly byte[] MarkStart = Encoding.UTF8.GetBytes("⁅⟪");
    private static readonly byte[] MarkEnd = Encoding.UTF8.GetBytes("⟫⁆");
    private static readonly Regex Id = new Regex("«[0-9]+\\.[0-9]+\\.[0-9]+»", RegexOptions.Compiled);

    /// <summary>Where each event starts.</summary>
    public static IEnumerable<int> Marks(byte[] bytes)
    {
        for (int at = 0; at < bytes.Length && bytes.AsSpan(at).IndexOf(MarkStart) is var i && i >= 0; at += i + MarkStart.Length)
        {
            yield return at + i;
        }
    }

    private readonly record struct Event(int Start, int End, string Thread);

    private static List<Event> Events(byte[] bytes)
    {
        var starts = Marks(bytes).ToList();
        var events = new List<Event>(starts.Count);
        for (int e = 0; e < starts.Count; e++)
        {
            int end = e + 1 < starts.Count ? starts[e + 1] : bytes.Length;
            int from = starts[e] + MarkStart.Length;
            int close = bytes.AsSpan(from, end - from).IndexOf(MarkEnd);
            events.Add(new Event(starts[e], end, close < 0 ? "?" : Encoding.UTF8.GetString(bytes, from, close)));
        }

        return events;
    }

    private static string Text(byte[] bytes, Event e) => OracleRunner.Clip(ArgSpec.Literal(Encoding.UTF8.GetString(bytes, e.Start, e.End - e.Start)), 300);

    private static bool Same(byte[] a, Event x, byte[] b, Event y) => a.AsSpan(x.Start, x.End - x.Start).SequenceEqual(b.AsSpan(y.Start, y.End - y.Start));

    /// <summary>A WARN, ERROR or FATAL event, by its level first after the mark (the pattern of every file under Discard).</summary>
    private static bool Severe(byte[] bytes, Event e)
    {
        int close = bytes.AsSpan(e.Start, e.End - e.Start).IndexOf(MarkEnd);
        if (close < 0)
        {
            return false;
        }

        string head = Encoding.UTF8.GetString(bytes, e.Start + close + MarkEnd.Length, Math.Min(6, e.End - e.Start - close - MarkEnd.Length));
        return head.StartsWith("WARN ", StringComparison.Ordinal) || head.StartsWith("ERROR ", StringComparison.Ordinal) || head.StartsWith("FATAL ", StringComparison.Ordinal);
    }

    /// <summary>
    /// Null when ours holds the oracle's text before the first event, and each thread's events of the oracle, in its
    /// order, each event no earlier in ours than the step that wrote it in the oracle's and, outside concurrent steps,
    /// in the oracle's order (<paramref name="labels"/>: each oracle event's step; <paramref name="concurrent"/>: whether
    /// a step is concurrent). Under Discard, ours may leave out INFO and DEBUG events, and adds reports of the discards.
    /// </summary>
    public static string? Difference(byte[] expected, byte[] actual, int[] labels, Func<int, bool> concurrent, bool discard, out int lines, out bool missing)
    {
        List<Event> oracle = Events(expected), ours = Events(actual);
        lines = 0;
        missing = false;
        int oracleHead = oracle.Count > 0 ? oracle[0].Start : expected.Length, ourHead = ours.Count > 0 ? ours[0].Start : actual.Length;
        if (OracleCompare.Difference(expected[..oracleHead], actual[..ourHead]) is { } head)
        {
            return "before the first event, " + head;
        }

        if (labels.Length != oracle.Count)
        {
            return $"the oracle's file has {oracle.Count} events, its trace {labels.Length}";
        }

        // An event of a concurrent step ranks with the step's first; any other by its own place.
        var rank = new int[oracle.Count];
        for (int i = 0; i < oracle.Count; i++)
        {
            rank[i] = i > 0 && labels[i] == labels[i - 1] && concurrent(labels[i]) ? rank[i - 1] : i;
        }

        var byThread = new Dictionary<string, List<int>>(StringComparer.Ordinal);
        for (int i = 0; i < oracle.Count; i++)
        {
            (byThread.TryGetValue(oracle[i].Thread, out List<int>? list) ? list : byThread[oracle[i].Thread] = new List<int>()).Add(i);
        }

        var next = byThread.Keys.ToDictionary(k => k, _ => 0, StringComparer.Ordinal);
        int lastRank = -1, lastOracle = -1, matched = 0;
        for (int n = 0; n < ours.Count; n++)
        {
            Event our = ours[n];
            string Where() => $"our event {n + 1} (thread {our.Thread}) {Text(actual, our)}";
            if (discard && IsReport(actual, our))
            {
                continue;
            }

            if (!byThread.TryGetValue(our.Thread, out List<int>? mine) || next[our.Thread] == mine.Count)
            {
                return $"{Where()}: the oracle's file has no {(mine == null ? "" : "more ")}event of this thread";
            }

            int p = next[our.Thread], q = p;
            while (discard && q < mine.Count && !(Same(expected, oracle[mine[q]], actual, our) && rank[mine[q]] >= lastRank))
            {
                q++;
            }

            if (q == mine.Count)
            {
                return $"under overflow=Discard, {Where()} is not among the oracle's events of its thread in this order";
            }

            if (discard && mine.Skip(p).Take(q - p).FirstOrDefault(i => Severe(expected, oracle[i]), -1) is var lost && lost >= 0)
            {
                return $"under overflow=Discard, a WARN, ERROR or FATAL event is missing: the oracle's {Text(expected, oracle[lost])} (ours went on with {Where()})";
            }

            int o = mine[q];
            if (!Same(expected, oracle[o], actual, our))
            {
                return $"{Where()} differs from the oracle's event {o + 1}, the thread's next: {Text(expected, oracle[o])}";
            }

            if (rank[o] < lastRank)
            {
                return $"{Where()} comes after the oracle's event {lastOracle + 1} (step {labels[lastOracle]}), which the oracle wrote after it (it is of step {labels[o]}): {Text(expected, oracle[lastOracle])}";
            }

            lastRank = rank[o];
            lastOracle = o;
            next[our.Thread] = q + 1;
            matched++;
            lines += Math.Max(1, actual.AsSpan(our.Start, our.End - our.Start).Count((byte)'\n'));
        }

        foreach ((string thread, List<int> mine) in byThread)
        {
            int left = mine.Skip(next[thread]).FirstOrDefault(i => !discard || Severe(expected, oracle[i]), -1);
            if (left >= 0)
            {
                return $"{(discard ? "under overflow=Discard, a WARN, ERROR or FATAL event is missing" : "ours has fewer events")}: thread {thread}'s {mine.Count - next[thread]} last ones, the first {Text(expected, oracle[left])}";
            }
        }

        missing = matched < oracle.Count;
        return null;
    }

    /// <summary>The report of discarded events, by its text or (for a child that writes no message) its logger.</summary>
    private static bool IsReport(byte[] bytes, Event e)
    {
        string text = Encoding.UTF8.GetString(bytes, e.Start, e.End - e.Start);
        return text.Contains(OracleLong.DiscardReport, StringComparison.Ordinal) || text.Contains(" LowLatencyLog.Appender.", StringComparison.Ordinal);
    }

    /// <summary>
    /// Null when the children of each async appender (the files of one tree's children) hold the events they share in
    /// one order: one worker hands each event to all of them, as log4net's ForwardingAppender does under its lock. Events
    /// are known by the id their message ends with. Not across two async appenders (the one on App.Sub and the root's):
    /// log4net calls a logger's appenders under a read lock only, so two threads may reach them in different orders.
    /// </summary>
    public static string? OrderDifference(OracleCase oracleCase, Dictionary<string, byte[]> files, string side)
    {
        for (int r = 0; r < oracleCase.Trees.Count; r++)
        {
            var names = oracleCase.Trees[r].Children.Select(c => $"repo{r}/{c.File}").Distinct().Where(files.ContainsKey).ToList();
            for (int a = 1; a < names.Count; a++)
            {
                List<string> first = Ids(files[names[0]]), other = Ids(files[names[a]]);
                var shared = first.Intersect(other).ToHashSet();
                List<string> one = first.Where(shared.Contains).ToList(), two = other.Where(shared.Contains).ToList();
                int at = Enumerable.Range(0, one.Count).FirstOrDefault(i => one[i] != two[i], -1);
                if (at >= 0)
                {
                    return $"{side} {names[0]} and {names[a]}, children of one async appender, hold {shared.Count} events of concurrent steps in two orders: the {at + 1}th is {one[at]} in one, {two[at]} in the other";
                }
            }
        }

        return null;
    }

    private static List<string> Ids(byte[] bytes) => Id.Matches(Encoding.UTF8.GetString(bytes)).Select(m => m.Value).ToList();
}
