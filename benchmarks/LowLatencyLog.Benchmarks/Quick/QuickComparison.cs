using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Benchmarks.Charts;

namespace LowLatencyLog.Benchmarks.Quick;

/// <summary>
/// <c>--quick [repeats] [csv] [cases] [events]</c>: the README's comparison in a few minutes. Every quick case, 1 and 4 producers, end to
/// end to a file; the median of several runs after one warm-up run. Prints a Markdown table (events/s and the ratio
/// against log4net's RollingFileAppender) and writes <c>Quick-throughput.csv</c> for <c>--charts</c>.
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

    public static int Run(string[] args)
    {
        int repeats = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 5;
        string csv = args.Length > 2 ? args[2] : Path.Combine(ResultsFolder.Path, "Quick-throughput.csv");
        // An optional comma-separated list picks cases by name from every suite (e.g. to set a case beside the floor).
        string[]? names = args.Length > 3 ? args[3].Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries) : null;
        CaseTable.ReportSkipped(Suites.Quick);
        BenchCase[] cases = names == null ? CaseTable.Runnable(Suites.Quick).ToArray() : names.Select(CaseTable.Get).ToArray();

        // More events per run than the buffer holds measure the sustained rate rather than a burst the buffer absorbs.
        int events = args.Length > 4 ? int.Parse(args[4], CultureInfo.InvariantCulture) : ThroughputProbe.Events;
        Console.WriteLine($"Quick comparison: {cases.Length} cases x {ProducerCounts.Length} producer counts, {events:N0} events per run, median of {repeats} runs; {Environment.ProcessorCount} cores.");

        // Every case once before any is measured: the code the cases share (the file appender, the layout) is optimized
        // while the first cases warm up, so without this pass the first case measured would run partly unoptimized.
        foreach (BenchCase benchCase in cases)
        {
            WarmUpCase(benchCase, 1);
        }

        (BenchCase Case, int Producers)[] cells = cases.SelectMany(c => ProducerCounts.Select(p => (c, p))).ToArray();
        var runs = cells.Select(_ => new List<double>()).ToArray();
        bool rewrite = !Console.IsOutputRedirected;
        int step = 0;
        for (int round = 0; round < repeats; round++)
        {
            for (int i = 0; i < cells.Length; i++)
            {
                (BenchCase benchCase, int producers) = cells[i];
                step++;
                string progress = $"[{step}/{cells.Length * repeats}] {benchCase.Name}, {producers} producer(s)";
                Console.Write(rewrite ? "\r" + progress.PadRight(70) : progress + Environment.NewLine);
                if (round == 0)
                {
                    // Warm-up for a second at least: the tiered JIT needs about that long to reach steady-state code.
                    WarmUpCase(benchCase, producers);
                }
                else
                {
                    ThroughputProbe.Measure(benchCase, producers, events);
                }

                runs[i].Add(ThroughputProbe.Measure(benchCase, producers, events));
            }
        }

        var rows = new List<ThroughputRow>();
        for (int i = 0; i < cells.Length; i++)
        {
            double median = runs[i].OrderBy(v => v).ElementAt(runs[i].Count / 2);
            rows.Add(new ThroughputRow("Quick", cells[i].Case.Name, cells[i].Producers, median, 1e9 / median, -1));
        }

        if (rewrite)
        {
            Console.Write("\r".PadRight(71) + "\r");
        }

        Console.WriteLine();
        Console.WriteLine(Table(rows));
        ThroughputCsv.Write(csv, rows);
        Console.WriteLine($"CSV: {csv}");
        return 0;
    }

    private static void WarmUpCase(BenchCase benchCase, int producers)
    {
        var warmUp = System.Diagnostics.Stopwatch.StartNew();
        do
        {
            ThroughputProbe.Measure(benchCase, producers);
        }
        while (warmUp.Elapsed < WarmUp);
    }

    /// <summary>Markdown: events/s per producer count and the ratio against the reference with the same producers.</summary>
    public static string Table(IReadOnlyList<ThroughputRow> rows)
    {
        int[] producers = rows.Select(r => r.Producers).Distinct().OrderBy(p => p).ToArray();
        var reference = rows.Where(r => r.Case == CaseTable.Reference).ToDictionary(r => r.Producers, r => r.EventsPerSecond);
        var lines = new List<string>
        {
            "| case | " + string.Join(" | ", producers.Select(p => $"{p} producer{(p == 1 ? "" : "s")}")) + " |",
            "|---|" + string.Concat(producers.Select(_ => "---:|")),
        };
        foreach (var byCase in rows.GroupBy(r => r.Case))
        {
            var cells = producers.Select(p =>
            {
                ThroughputRow? row = byCase.FirstOrDefault(r => r.Producers == p);
                if (row == null)
                {
                    return "-";
                }

                string ratio = reference.TryGetValue(p, out double baseline) ? $" ({row.EventsPerSecond / baseline:F1}×)" : "";
                return FormatRate(row.EventsPerSecond) + ratio;
            });
            lines.Add($"| {byCase.Key} | {string.Join(" | ", cells)} |");
        }

        lines.Add($"Events/s end to end (all lines on disk); in brackets: against {CaseTable.Reference} (log4net RollingFileAppender, defaults) with the same producers.");
        return string.Join(Environment.NewLine, lines);
    }

    public static string FormatRate(double eventsPerSecond) => eventsPerSecond >= 1e6
        ? (eventsPerSecond / 1e6).ToString("F2", CultureInfo.InvariantCulture) + " M/s"
        : (eventsPerSecond / 1e3).ToString("F0", CultureInfo.InvariantCulture) + " k/s";
}

/// <summary>Where the commands write their CSV files: BenchmarkDotNet's own results folder.</summary>
internal static class ResultsFolder
{
    public static string Path => System.IO.Path.Combine("BenchmarkDotNet.Artifacts", "results");
}
