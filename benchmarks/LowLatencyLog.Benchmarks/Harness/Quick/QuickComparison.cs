using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Benchmarks.Csv;

namespace LowLatencyLog.Benchmarks.Quick;

/// <summary>
/// <c>--quick [repeats] [csv] [cases] [events] [kinds]</c>: the README's comparison in a few minutes. Every quick case,
/// 1 and 4 producers, each message kind asked for (default: <see cref="MessageKind.Format1"/>; <c>all</c>), end to
/// end to a file; the median of several runs after one warm-up run. Prints a Markdown table per kind (events/s and the
/// ratio against log4net's RollingFileAppender, bytes each producer thread allocated per call, collections per run)
/// and writes <c>Quick-throughput.csv</c> for the chart tool.
/// The runs are taken in rounds, each round measuring every cell once: a slow stretch of the machine then lowers one
/// run of every cell instead of every run of a few, and the medians stay comparable. Each measured run follows an
/// unmeasured run of the same cell, which takes what the previous cell left behind (its garbage, its file still being
/// written back, its threads winding down).
/// </summary>
/// <remarks>
/// Not BenchmarkDotNet: one process, few runs, no statistics beyond the median. Use it to see the picture; use the
/// BenchmarkDotNet suites for figures to publish.
/// </remarks>
internal static class QuickComparison
{
    private static readonly int[] ProducerCounts = { 1, 4 };
    private static readonly TimeSpan WarmUp = TimeSpan.FromSeconds(1);

    /// <summary>The cases <c>--overload</c> sets side by side: the floor, the file appender alone, and the async ones.</summary>
    private static readonly string[] OverloadCases =
    {
        CaseTable.Floor, CaseTable.SyncFile, "BlockingCollection+File", "Channel+File",
        "BoundedQueue+RollingBufferedFile", "HotSwap+RollingBufferedFile", "Disruptor+RollingBufferedFile",
        "BoundedQueue+RollingBufferedFile+Intercepted", "HotSwap+RollingBufferedFile+Intercepted", "Disruptor+RollingBufferedFile+Intercepted",
    };

    public static int Run(string[] args)
    {
        // "-" keeps an argument's default, so that a later one can be given.
        string? Arg(int i) => args.Length > i && args[i] != "-" ? args[i] : null;
        int repeats = Arg(1) is { } r ? int.Parse(r, CultureInfo.InvariantCulture) : 5;
        string csv = Arg(2) ?? Path.Combine(ResultsFolder.Path, "Quick-throughput.csv");
        // An optional comma-separated list picks cases by name from every suite (e.g. to set a case beside the floor).
        string[]? names = Arg(3)?.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries);
        CaseTable.ReportSkipped(Suites.Quick);
        BenchCase[] cases = names == null ? CaseTable.Runnable(Suites.Quick).ToArray() : names.Select(CaseTable.Get).ToArray();

        // More events per run than the buffer holds measure the sustained rate rather than a burst the buffer absorbs.
        int events = Arg(4) is { } e ? int.Parse(e, CultureInfo.InvariantCulture) : ThroughputProbe.Events;
        MessageKind[] kinds = Arg(5) is { } k ? MessageKinds.Parse(k) : new[] { MessageKind.Format1 };
        return Compare("Quick", cases, kinds, repeats, events, csv);
    }

    /// <summary>
    /// <c>--overload [repeats] [events] [csv]</c>: a string built per call, many more events than the async buffers
    /// hold (default 1,048,576, 16 times), so that the async cases run full and block. Their collections against
    /// the synchronous RollingBufferedFileAppender's and log4net's floor, in the same run.
    /// </summary>
    public static int Overload(string[] args)
    {
        string? Arg(int i) => args.Length > i && args[i] != "-" ? args[i] : null;
        int repeats = Arg(1) is { } r ? int.Parse(r, CultureInfo.InvariantCulture) : 3;
        int events = Arg(2) is { } e ? int.Parse(e, CultureInfo.InvariantCulture) : 1 << 20;
        string csv = Arg(3) ?? Path.Combine(ResultsFolder.Path, "Overload-throughput.csv");
        BenchCase[] cases = OverloadCases.Select(CaseTable.Get).Where(c => c.Available).ToArray();
        return Compare("Overload", cases, new[] { MessageKind.Interpolated }, repeats, events, csv);
    }

    private static int Compare(string suite, BenchCase[] cases, MessageKind[] kinds, int repeats, int events, string csv)
    {
        Console.WriteLine($"{suite} comparison: {cases.Length} cases x {kinds.Length} message kind(s) x {ProducerCounts.Length} producer counts, {events:N0} events per run, median of {repeats} runs; {Environment.ProcessorCount} cores.");

        // Every case once before any is measured: the code the cases share (the file appender, the layout) is optimized
        // while the first cases warm up, so without this pass the first case measured would run partly unoptimized.
        foreach (BenchCase benchCase in cases)
        {
            foreach (MessageKind kind in kinds)
            {
                WarmUpCase(benchCase, kind, 1, WarmUp / kinds.Length);
            }
        }

        (BenchCase Case, MessageKind Kind, int Producers)[] cells =
            kinds.SelectMany(k => cases.SelectMany(c => ProducerCounts.Select(p => (c, k, p)))).ToArray();
        var runs = cells.Select(_ => new List<Probe>()).ToArray();
        bool rewrite = !Console.IsOutputRedirected;
        int step = 0;
        for (int round = 0; round < repeats; round++)
        {
            for (int i = 0; i < cells.Length; i++)
            {
                (BenchCase benchCase, MessageKind kind, int producers) = cells[i];
                step++;
                string progress = $"[{step}/{cells.Length * repeats}] {benchCase.Name}, {kind}, {producers} producer(s)";
                Console.Write(rewrite ? "\r" + progress.PadRight(80) : progress + Environment.NewLine);
                if (round == 0)
                {
                    // Warm-up for a second at least: the tiered JIT needs about that long to reach steady-state code.
                    WarmUpCase(benchCase, kind, producers, WarmUp);
                }
                else
                {
                    ThroughputProbe.Measure(benchCase, kind, producers, events);
                }

                runs[i].Add(ThroughputProbe.Measure(benchCase, kind, producers, events));
            }
        }

        var rows = new List<ThroughputRow>();
        var cpu = new Dictionary<(string, string, int), double>();
        for (int i = 0; i < cells.Length; i++)
        {
            // The median run's rate, and that same run's bytes and collections.
            Probe median = runs[i].OrderBy(v => v.EventsPerSecond).ElementAt(runs[i].Count / 2);
            rows.Add(new ThroughputRow(suite, cells[i].Case.Name, cells[i].Kind.ToString(), cells[i].Producers,
                median.EventsPerSecond, 1e9 / median.EventsPerSecond, -1, median.BytesPerCall, median.Gen0, median.Gen1, median.Gen2));
            cpu[(cells[i].Case.Name, cells[i].Kind.ToString(), cells[i].Producers)] = runs[i].Select(v => v.CpuSecondsPerMillion).OrderBy(v => v).ElementAt(runs[i].Count / 2);
        }

        if (rewrite)
        {
            Console.Write("\r".PadRight(81) + "\r");
        }

        Console.WriteLine();
        foreach (var byKind in rows.GroupBy(r => r.Kind))
        {
            MessageKind kind = Enum.Parse<MessageKind>(byKind.Key);
            Console.WriteLine($"{kind}: {MessageKinds.Label(kind)}");
            Console.WriteLine();
            Console.WriteLine(Table(byKind.ToList(), events));
            Console.WriteLine();
            Console.WriteLine("Process CPU per million events (every thread; median of the runs), s: " + string.Join("; ",
                byKind.Select(r => $"{r.Case} {r.Producers}p {cpu[(r.Case, r.Kind, r.Producers)]:F2}")));
            Console.WriteLine();
        }

        ThroughputCsv.Write(csv, rows);
        Console.WriteLine($"CSV: {csv}");
        return 0;
    }

    private static void WarmUpCase(BenchCase benchCase, MessageKind kind, int producers, TimeSpan duration)
    {
        var warmUp = System.Diagnostics.Stopwatch.StartNew();
        do
        {
            ThroughputProbe.Measure(benchCase, kind, producers);
        }
        while (warmUp.Elapsed < duration);
    }

    /// <summary>
    /// Markdown for one message kind: events/s per producer count with the ratio against the reference with the same
    /// producers, then the bytes each producer thread allocated per call, then the collections during the run.
    /// </summary>
    public static string Table(IReadOnlyList<ThroughputRow> rows, int events)
    {
        int[] producers = rows.Select(r => r.Producers).Distinct().OrderBy(p => p).ToArray();
        var reference = rows.Where(r => r.Case == CaseTable.Reference).ToDictionary(r => r.Producers, r => r.EventsPerSecond);
        string P(int p) => $"{p} producer{(p == 1 ? "" : "s")}";
        var lines = new List<string>
        {
            "| case | " + string.Join(" | ", producers.Select(P)) + " | "
                + string.Join(" | ", producers.Select(p => $"B/call, {P(p)}")) + " | "
                + string.Join(" | ", producers.Select(p => $"gen0/1/2, {P(p)}")) + " |",
            "|---|" + string.Concat(Enumerable.Repeat("---:|", producers.Length * 3)),
        };
        foreach (var byCase in rows.GroupBy(r => r.Case))
        {
            ThroughputRow?[] cells = producers.Select(p => byCase.FirstOrDefault(r => r.Producers == p)).ToArray();
            var rates = cells.Select((row, i) =>
            {
                if (row == null)
                {
                    return "-";
                }

                string ratio = reference.TryGetValue(producers[i], out double baseline) ? $" ({row.EventsPerSecond / baseline:F1}×)" : "";
                return RateText.Format(row.EventsPerSecond) + ratio;
            });
            var bytes = cells.Select(row => row == null ? "-" : row.ProducerBytesPerCall.ToString("F0", CultureInfo.InvariantCulture));
            var collections = cells.Select(row => row == null ? "-" : $"{row.Gen0}/{row.Gen1}/{row.Gen2}");
            lines.Add($"| {byCase.Key} | {string.Join(" | ", rates.Concat(bytes).Concat(collections))} |");
        }

        lines.Add(reference.Count > 0
            ? $"Events/s end to end (all lines on disk); in brackets: against {CaseTable.Reference} (log4net RollingFileAppender, defaults) with the same producers."
            : "Events/s end to end (all lines on disk).");
        lines.Add($"B/call: bytes each producer thread allocated per call. gen0/1/2: collections during the median run of {events:N0} events.");
        return string.Join(Environment.NewLine, lines);
    }
}

/// <summary>Where the commands write their CSV files: BenchmarkDotNet's own results folder.</summary>
internal static class ResultsFolder
{
    public static string Path => System.IO.Path.Combine("BenchmarkDotNet.Artifacts", "results");
}
