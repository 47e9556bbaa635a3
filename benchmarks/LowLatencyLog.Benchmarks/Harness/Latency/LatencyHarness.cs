using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using HdrHistogram;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Benchmarks.Csv;
using LowLatencyLog.Benchmarks.Quick;

namespace LowLatencyLog.Benchmarks.Latency;

/// <summary>
/// <c>--latency [seconds] [rates|auto] [producers] [csv] [kinds] [rounds] [between]</c>: per-call latency of each message kind for every
/// latency case (log4net's floor, its synchronous FileAppender, our RollingBufferedFileAppender on the logging thread,
/// the async appenders), producers paced at a fixed total rate (<see cref="PacedProducer"/>), each case at each rate
/// of a comma-separated list (e.g. <c>1000,10000,100000</c>). One histogram per producer thread, merged per case.
/// Prints the percentiles with the bytes each producer allocated per call and the collections, and writes them to a
/// CSV file; with several rounds (default 3) every statistic is the median of the rounds, with their spread printed. <c>auto</c> runs every case at half the sustainable rate of the slowest async case, measured first with
/// the same producers and kind. <c>between</c>: what each producer does between calls (<see cref="Between"/>): <c>sleep</c>
/// (the default), <c>spin</c>, <c>work[:KB]</c>, or <c>b2b</c>: bursts of <see cref="PacedProducer.BurstCalls"/> calls
/// back to back, a burst starting on the schedule (the rate stays the average). <c>--latency-smoke</c>: a short run that checks its own output.
/// </summary>
internal static class LatencyHarness
{
    private const string NoLoggingCase = CaseTable.NoLogging;

    private static readonly double[] Percentiles = { 50, 90, 99, 99.9, 99.99 };

    public static int Run(string[] args) => Run(args, Suites.Latency);

    /// <summary>
    /// <c>--stall [seconds] [rates] [producers] [csv] [kinds] [rounds] [between]</c>: the same measurement for the synchronous file appender
    /// and each async appender, each without and with a child beside the file that stalls 100 ms every second (a slow
    /// disk, a network appender): what a stall does to the calling thread.
    /// </summary>
    public static int Stall(string[] args) => Run(args, Suites.Stall);

    private static int Run(string[] args, Suites suite)
    {
        // "-" keeps an argument's default, so that a later one can be given.
        string? Arg(int i) => args.Length > i && args[i] != "-" ? args[i] : null;
        double seconds = Arg(1) is { } s ? double.Parse(s, CultureInfo.InvariantCulture) : 10;
        string rateArg = Arg(2) ?? "auto";
        int producers = Arg(3) is { } p ? int.Parse(p, CultureInfo.InvariantCulture) : 2;
        string csv = Arg(4) ?? Path.Combine(ResultsFolder.Path, suite == Suites.Stall ? "stall.csv" : "latency.csv");
        MessageKind[] kinds = Arg(5) is { } k ? MessageKinds.Parse(k) : new[] { MessageKind.Format1 };
        int rounds = Arg(6) is { } n ? int.Parse(n, CultureInfo.InvariantCulture) : 3;
        Between between = Between.Parse(Arg(7) ?? "sleep");

        CaseTable.ReportSkipped(suite);
        BenchCase[] cases = CaseTable.Runnable(suite).ToArray();
        int[]? rates = rateArg == "auto" ? null : rateArg.Split(',', StringSplitOptions.RemoveEmptyEntries).Select(r => int.Parse(r, CultureInfo.InvariantCulture)).ToArray();
        Console.WriteLine($"Latency: {rounds} round(s) of {cases.Length} cases x {kinds.Length} message kind(s) at {(rates == null ? "half the sustainable rate" : string.Join(", ", rates.Select(r => r.ToString("N0", CultureInfo.InvariantCulture))) + " events/s")} in total from {producers} paced producers ({between} between calls), {seconds} s measured per case after a warm-up; {Environment.ProcessorCount} cores.");

        var results = new List<CaseResult>();
        foreach (MessageKind kind in kinds)
        {
            foreach (int rate in rates ?? new[] { HalfSustainableRate(cases, producers, kind) })
            {
                // Rounds, each running every case once in an order that moves by one case per round, so that no case
                // always runs first (fresh) or last (after the others' garbage and page cache); the median is reported.
                var runs = new List<List<CaseResult>>();
                for (int round = 0; round < rounds; round++)
                {
                    BenchCase[] order = cases.Skip(round % cases.Length).Concat(cases.Take(round % cases.Length)).ToArray();
                    runs.Add(RunAll(order, kind, seconds, rate, producers, between, progress: seconds >= 5));
                }

                List<CaseResult> run = cases.Select(c => Median(runs.Select(r => r.Single(x => x.Case == c.Name)).ToList())).ToList();
                PrintTables(run, kind, rate, producers);
                if (rounds > 1)
                {
                    PrintSpread(runs, cases);
                }

                results.AddRange(run);
            }
        }

        LatencyCsv.Write(csv, results.SelectMany(r => r.Rows));
        Console.WriteLine($"CSV: {csv}");
        return results.All(r => r.Error == null) ? 0 : 1;
    }

    /// <summary>About half a minute: every latency and stall case briefly, then checks that each produced histograms and the CSV.</summary>
    public static int Smoke()
    {
        const int Rate = 2000;
        const int Producers = 2;
        const double Seconds = 1;
        const MessageKind Kind = MessageKind.Format1;
        CaseTable.ReportSkipped(Suites.Latency | Suites.Stall);
        BenchCase[] cases = CaseTable.Runnable(Suites.Latency | Suites.Stall).ToArray();
        string folder = BenchSession.NewFolder();
        try
        {
            string csv = Path.Combine(folder, "latency.csv");
            List<CaseResult> results = RunAll(cases, Kind, Seconds, Rate, Producers, new Between(BetweenMode.Work, 64 * 1024), progress: false);
            PrintTables(results, Kind, Rate, Producers);
            LatencyCsv.Write(csv, results.SelectMany(r => r.Rows));

            var problems = new List<string>();
            problems.AddRange(results.Where(r => r.Error != null).Select(r => $"{r.Case}: {r.Error}"));
            long expected = (long)(Rate * Seconds * 0.5); // at least half the scheduled calls, whatever the noise
            foreach (CaseResult r in results)
            {
                foreach (LatencyRow row in r.Rows.Where(row => row.Count < expected || row.Max <= 0 || row.P50 > row.Max || row.ProducerBytesPerCall < 0))
                {
                    problems.Add($"{r.Case} {row.Metric}: {row.Count} samples (expected at least {expected}), p50 {row.P50} µs, max {row.Max} µs, {row.ProducerBytesPerCall} B/call");
                }
            }

            LatencyRow[] readBack = File.Exists(csv) ? LatencyCsv.Read(csv).ToArray() : Array.Empty<LatencyRow>();
            if (readBack.Length != cases.Length * 2 || cases.Any(c => readBack.Count(row => row.Case == c.Name && row.Kind == Kind.ToString()) != 2))
            {
                problems.Add($"{csv}: {readBack.Length} rows, expected 2 per case for {cases.Length} cases");
            }

            if (cases.Length == 0)
            {
                problems.Add("no latency case can run");
            }

            foreach (string problem in problems)
            {
                Console.WriteLine("latency smoke: " + problem);
            }

            Console.WriteLine($"latency smoke: {cases.Length} cases, {readBack.Length} CSV rows, {(problems.Count == 0 ? "ok" : problems.Count + " problem(s)")}");
            return problems.Count == 0 ? 0 : 1;
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    private static int HalfSustainableRate(BenchCase[] cases, int producers, MessageKind kind)
    {
        BenchCase[] asyncCases = cases.Where(c => c.IsAsync).ToArray();
        if (asyncCases.Length == 0)
        {
            asyncCases = cases.Where(c => c.Name != NoLoggingCase).ToArray();
        }

        double slowest = double.MaxValue;
        foreach (BenchCase c in asyncCases)
        {
            ThroughputProbe.Measure(c, kind, producers); // warm-up
            double rate = ThroughputProbe.Measure(c, kind, producers).EventsPerSecond;
            Console.WriteLine($"sustainable: {c.Name}, {kind}, {producers} producers: {rate:N0} events/s");
            slowest = Math.Min(slowest, rate);
        }

        // Rounded down to two significant digits, so that runs on the same machine tend to share a rate.
        double half = slowest / 2;
        double unit = Math.Pow(10, Math.Floor(Math.Log10(half)) - 1);
        return (int)(Math.Floor(half / unit) * unit);
    }

    private static List<CaseResult> RunAll(BenchCase[] cases, MessageKind kind, double seconds, int rate, int producers, Between between, bool progress)
    {
        var results = new List<CaseResult>();
        foreach (BenchCase c in cases)
        {
            results.Add(Measure(c, kind, seconds, rate, producers, between, progress));
        }

        return results;
    }

    private static CaseResult Measure(BenchCase benchCase, MessageKind kind, double seconds, int rate, int producers, Between between, bool progress)
    {
        double warmup = Math.Clamp(seconds / 5, 0.5, 2);
        using BenchSession session = benchCase.Open(kind);
        long frequency = Stopwatch.Frequency;
        long period = (long)(frequency * (double)producers / rate);
        long start = Stopwatch.GetTimestamp() + frequency / 20; // let every thread start first
        long measureFrom = start + (long)(warmup * frequency);
        long end = measureFrom + (long)(seconds * frequency);
        var threads = Enumerable.Range(0, producers)
            .Select(k => new PacedProducer(session, start + k * period / producers, period, measureFrom, end, between))
            .ToArray();
        foreach (PacedProducer p in threads)
        {
            p.Start();
        }

        if (progress)
        {
            ShowProgress(benchCase.Name, threads, start, end);
        }

        foreach (PacedProducer p in threads)
        {
            p.Join();
        }

        foreach (string slow in threads.SelectMany(p => p.SlowCalls))
        {
            Console.WriteLine($"  slow: {benchCase.Name}: {slow}");
        }

        long stopStart = Stopwatch.GetTimestamp();
        session.Stop();
        double drainMilliseconds = Stopwatch.GetElapsedTime(stopStart).TotalMilliseconds;
        long sent = threads.Sum(p => p.Sent);
        long delivered = session.Delivered();

        string? error = threads.Select(p => p.Failure).FirstOrDefault(f => f != null)?.ToString();
        if (error == null && delivered != sent)
        {
            error = $"{delivered} of {sent} events arrived";
        }

        var response = new LongHistogram(threads[0].Response.HighestTrackableValue, 3);
        var service = new LongHistogram(threads[0].Service.HighestTrackableValue, 3);
        foreach (PacedProducer p in threads)
        {
            response.Add(p.Response);
            service.Add(p.Service);
        }

        // The collections are the process's, counted over the first producer's measured stretch.
        var cost = (threads.Average(p => p.BytesPerCall), threads[0].Collections);
        return new CaseResult(benchCase.Name, drainMilliseconds, error, new[]
        {
            Row(benchCase.Name, kind, "response", rate, producers, response, cost),
            Row(benchCase.Name, kind, "service", rate, producers, service, cost),
        });
    }

    /// <summary>One result per statistic: the median of the rounds' values (counts and collections added up).</summary>
    private static CaseResult Median(List<CaseResult> rounds)
    {
        if (rounds.Count == 1)
        {
            return rounds[0];
        }

        static double Mid(IEnumerable<double> values)
        {
            double[] sorted = values.OrderBy(v => v).ToArray();
            return sorted.Length % 2 == 1 ? sorted[sorted.Length / 2] : (sorted[sorted.Length / 2 - 1] + sorted[sorted.Length / 2]) / 2;
        }

        LatencyRow MedianRow(string metric)
        {
            LatencyRow[] rows = rounds.Select(r => r.Rows.Single(x => x.Metric == metric)).ToArray();
            LatencyRow first = rows[0];
            return first with
            {
                Count = rows.Sum(r => r.Count),
                P50 = Mid(rows.Select(r => r.P50)), P90 = Mid(rows.Select(r => r.P90)), P99 = Mid(rows.Select(r => r.P99)),
                P999 = Mid(rows.Select(r => r.P999)), P9999 = Mid(rows.Select(r => r.P9999)), Max = Mid(rows.Select(r => r.Max)),
                ProducerBytesPerCall = Mid(rows.Select(r => r.ProducerBytesPerCall)),
                Gen0 = rows.Sum(r => r.Gen0), Gen1 = rows.Sum(r => r.Gen1), Gen2 = rows.Sum(r => r.Gen2),
            };
        }

        return new CaseResult(rounds[0].Case, Mid(rounds.Select(r => r.DrainMilliseconds)), rounds.Select(r => r.Error).FirstOrDefault(e => e != null),
            new[] { MedianRow("response"), MedianRow("service") });
    }

    /// <summary>The lowest and highest value of each response-time statistic across the rounds.</summary>
    private static void PrintSpread(List<List<CaseResult>> runs, BenchCase[] cases)
    {
        Console.WriteLine($"Spread across the {runs.Count} rounds (response time, lowest–highest), µs:");
        Console.WriteLine("| case | p50 | p99 | p99.9 | p99.99 | max |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|");
        foreach (BenchCase c in cases)
        {
            LatencyRow[] rows = runs.Select(r => r.Single(x => x.Case == c.Name).Rows.Single(x => x.Metric == "response")).ToArray();
            string Range(Func<LatencyRow, double> f) => Format(rows.Min(f)) + "–" + Format(rows.Max(f));
            Console.WriteLine($"| {c.Name} | {Range(r => r.P50)} | {Range(r => r.P99)} | {Range(r => r.P999)} | {Range(r => r.P9999)} | {Range(r => r.Max)} |");
        }

        Console.WriteLine();
    }

    private static void ShowProgress(string name, PacedProducer[] threads, long start, long end)
    {
        double total = (double)(end - start) / Stopwatch.Frequency;
        bool rewrite = !Console.IsOutputRedirected;
        while (Stopwatch.GetTimestamp() < end)
        {
            Thread.Sleep(rewrite ? 1000 : 5000);
            double elapsed = Math.Max(0, (double)(Stopwatch.GetTimestamp() - start) / Stopwatch.Frequency);
            double lagMs = threads.Max(p => p.LagTicks) * 1000.0 / Stopwatch.Frequency;
            string line = string.Format(CultureInfo.InvariantCulture, "  {0}: {1:F0}/{2:F0} s, {3:N0} events, {4:F1} ms behind schedule",
                name, Math.Min(elapsed, total), total, threads.Sum(p => p.Sent), lagMs);
            Console.Write(rewrite ? "\r" + line.PadRight(90) : line + Environment.NewLine);
            if (elapsed >= total)
            {
                break;
            }
        }

        if (rewrite)
        {
            Console.Write("\r".PadRight(91) + "\r");
        }
    }

    private static LatencyRow Row(string name, MessageKind kind, string metric, int rate, int producers, LongHistogram h, (double BytesPerCall, int[] Collections) cost)
    {
        double Us(long ns) => ns / 1000.0;
        double[] p = Percentiles.Select(q => h.TotalCount == 0 ? 0 : Us(h.GetValueAtPercentile(q))).ToArray();
        return new LatencyRow(name, kind.ToString(), metric, rate, producers, h.TotalCount, p[0], p[1], p[2], p[3], p[4], h.TotalCount == 0 ? 0 : Us(h.GetMaxValue()),
            cost.BytesPerCall, cost.Collections[0], cost.Collections[1], cost.Collections[2]);
    }

    private static void PrintTables(List<CaseResult> results, MessageKind kind, int rate, int producers)
    {
        Console.WriteLine();
        Console.WriteLine(string.Format(CultureInfo.InvariantCulture, "{0} ({1}) at {2:N0} events/s from {3} producers:", kind, MessageKinds.Label(kind), rate, producers));
        foreach (string metric in new[] { "response", "service" })
        {
            bool response = metric == "response";
            Console.WriteLine();
            Console.WriteLine(response
                ? "Response time (from when the call was due), µs; B/call: bytes each producer thread allocated per call; gen0/1/2: collections while measuring:"
                : "Service time (from when the call started), µs:");
            Console.WriteLine("| case | calls | p50 | p90 | p99 | p99.9 | p99.99 | max |" + (response ? " shutdown (ms) | B/call | gen0/1/2 |" : ""));
            Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|" + (response ? "---:|---:|---:|" : ""));
            foreach (CaseResult r in results)
            {
                LatencyRow row = r.Rows.Single(x => x.Metric == metric);
                string cells = string.Join(" | ", new[] { row.P50, row.P90, row.P99, row.P999, row.P9999, row.Max }.Select(Format));
                string extra = response
                    ? string.Format(CultureInfo.InvariantCulture, " {0:F0} | {1:F0} | {2}/{3}/{4} |", r.DrainMilliseconds, row.ProducerBytesPerCall, row.Gen0, row.Gen1, row.Gen2)
                    : "";
                Console.WriteLine($"| {r.Case} | {row.Count:N0} | {cells} |{extra}" + (r.Error == null ? "" : " FAILED: " + r.Error));
            }
        }

        Console.WriteLine();
    }

    private static string Format(double microseconds) =>
        microseconds >= 100 ? microseconds.ToString("N0", CultureInfo.InvariantCulture) : microseconds.ToString("F1", CultureInfo.InvariantCulture);

    private sealed record CaseResult(string Case, double DrainMilliseconds, string? Error, LatencyRow[] Rows);
}
