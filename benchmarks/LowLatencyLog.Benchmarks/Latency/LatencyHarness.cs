using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using HdrHistogram;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Benchmarks.Charts;
using LowLatencyLog.Benchmarks.Quick;

namespace LowLatencyLog.Benchmarks.Latency;

/// <summary>
/// <c>--latency [seconds] [rate|auto] [producers] [csv]</c>: per-call latency of <c>ILog.Info</c> for every latency
/// case (log4net's synchronous FileAppender, the async appenders), producers paced at a fixed total rate
/// (<see cref="PacedProducer"/>). One histogram per producer thread, merged per case. Prints the percentiles and
/// writes them to a CSV file. <c>auto</c> runs every case at half the sustainable rate of the slowest async case,
/// measured first with the same producers. <c>--latency-smoke</c>: a short run that checks its own output.
/// </summary>
internal static class LatencyHarness
{
    private const string NoLoggingCase = CaseTable.NoLogging;

    private static readonly double[] Percentiles = { 50, 90, 99, 99.9, 99.99 };

    public static int Run(string[] args)
    {
        double seconds = args.Length > 1 ? double.Parse(args[1], CultureInfo.InvariantCulture) : 10;
        string rateArg = args.Length > 2 ? args[2] : "auto";
        int producers = args.Length > 3 ? int.Parse(args[3], CultureInfo.InvariantCulture) : 2;
        string csv = args.Length > 4 ? args[4] : Path.Combine(ResultsFolder.Path, "latency.csv");

        CaseTable.ReportSkipped(Suites.Latency);
        BenchCase[] cases = CaseTable.Runnable(Suites.Latency).ToArray();
        int rate = rateArg == "auto" ? HalfSustainableRate(cases, producers) : int.Parse(rateArg, CultureInfo.InvariantCulture);
        Console.WriteLine($"Latency: {cases.Length} cases, {rate:N0} events/s in total from {producers} paced producers, {seconds} s measured per case after a warm-up; {Environment.ProcessorCount} cores.");

        List<CaseResult> results = RunAll(cases, seconds, rate, producers, progress: seconds >= 5);
        PrintTables(results);
        LatencyCsv.Write(csv, results.SelectMany(r => r.Rows));
        Console.WriteLine($"CSV: {csv}");
        return results.All(r => r.Error == null) ? 0 : 1;
    }

    /// <summary>About ten seconds: every latency case briefly, then checks that each produced histograms and the CSV.</summary>
    public static int Smoke()
    {
        const int Rate = 2000;
        const int Producers = 2;
        const double Seconds = 1.5;
        CaseTable.ReportSkipped(Suites.Latency);
        BenchCase[] cases = CaseTable.Runnable(Suites.Latency).ToArray();
        string folder = BenchSession.NewFolder();
        try
        {
            string csv = Path.Combine(folder, "latency.csv");
            List<CaseResult> results = RunAll(cases, Seconds, Rate, Producers, progress: false);
            PrintTables(results);
            LatencyCsv.Write(csv, results.SelectMany(r => r.Rows));

            var problems = new List<string>();
            problems.AddRange(results.Where(r => r.Error != null).Select(r => $"{r.Case}: {r.Error}"));
            long expected = (long)(Rate * Seconds * 0.5); // at least half the scheduled calls, whatever the noise
            foreach (CaseResult r in results)
            {
                foreach (LatencyRow row in r.Rows.Where(row => row.Count < expected || row.Max <= 0 || row.P50 > row.Max))
                {
                    problems.Add($"{r.Case} {row.Metric}: {row.Count} samples (expected at least {expected}), p50 {row.P50} µs, max {row.Max} µs");
                }
            }

            LatencyRow[] readBack = File.Exists(csv) ? LatencyCsv.Read(csv).ToArray() : Array.Empty<LatencyRow>();
            if (readBack.Length != cases.Length * 2 || cases.Any(c => readBack.Count(row => row.Case == c.Name) != 2))
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

    private static int HalfSustainableRate(BenchCase[] cases, int producers)
    {
        BenchCase[] asyncCases = cases.Where(c => c.IsAsync).ToArray();
        if (asyncCases.Length == 0)
        {
            asyncCases = cases.Where(c => c.Name != NoLoggingCase).ToArray();
        }

        double slowest = double.MaxValue;
        foreach (BenchCase c in asyncCases)
        {
            ThroughputProbe.Measure(c, producers); // warm-up
            double rate = ThroughputProbe.Measure(c, producers);
            Console.WriteLine($"sustainable: {c.Name}, {producers} producers: {rate:N0} events/s");
            slowest = Math.Min(slowest, rate);
        }

        // Rounded down to two significant digits, so that runs on the same machine tend to share a rate.
        double half = slowest / 2;
        double unit = Math.Pow(10, Math.Floor(Math.Log10(half)) - 1);
        return (int)(Math.Floor(half / unit) * unit);
    }

    private static List<CaseResult> RunAll(BenchCase[] cases, double seconds, int rate, int producers, bool progress)
    {
        var results = new List<CaseResult>();
        foreach (BenchCase c in cases)
        {
            results.Add(Measure(c, seconds, rate, producers, progress));
        }

        return results;
    }

    private static CaseResult Measure(BenchCase benchCase, double seconds, int rate, int producers, bool progress)
    {
        double warmup = Math.Clamp(seconds / 5, 0.5, 2);
        using BenchSession session = benchCase.Open();
        long frequency = Stopwatch.Frequency;
        long period = (long)(frequency * (double)producers / rate);
        long start = Stopwatch.GetTimestamp() + frequency / 20; // let every thread start first
        long measureFrom = start + (long)(warmup * frequency);
        long end = measureFrom + (long)(seconds * frequency);
        var threads = Enumerable.Range(0, producers)
            .Select(k => new PacedProducer(session, start + k * period / producers, period, measureFrom, end))
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

        return new CaseResult(benchCase.Name, drainMilliseconds, error, new[]
        {
            Row(benchCase.Name, "response", rate, producers, response),
            Row(benchCase.Name, "service", rate, producers, service),
        });
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

    private static LatencyRow Row(string name, string metric, int rate, int producers, LongHistogram h)
    {
        double Us(long ns) => ns / 1000.0;
        double[] p = Percentiles.Select(q => h.TotalCount == 0 ? 0 : Us(h.GetValueAtPercentile(q))).ToArray();
        return new LatencyRow(name, metric, rate, producers, h.TotalCount, p[0], p[1], p[2], p[3], p[4], h.TotalCount == 0 ? 0 : Us(h.GetMaxValue()));
    }

    private static void PrintTables(List<CaseResult> results)
    {
        foreach (string metric in new[] { "response", "service" })
        {
            Console.WriteLine();
            Console.WriteLine(metric == "response"
                ? "Response time (from when the call was due), µs:"
                : "Service time (from when the call started), µs:");
            Console.WriteLine("| case | calls | p50 | p90 | p99 | p99.9 | p99.99 | max |" + (metric == "response" ? " shutdown (ms) |" : ""));
            Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|" + (metric == "response" ? "---:|" : ""));
            foreach (CaseResult r in results)
            {
                LatencyRow row = r.Rows.Single(x => x.Metric == metric);
                string cells = string.Join(" | ", new[] { row.P50, row.P90, row.P99, row.P999, row.P9999, row.Max }.Select(Format));
                string drain = metric == "response" ? $" {r.DrainMilliseconds:F0} |" : "";
                Console.WriteLine($"| {r.Case} | {row.Count:N0} | {cells} |{drain}" + (r.Error == null ? "" : " FAILED: " + r.Error));
            }
        }

        Console.WriteLine();
    }

    private static string Format(double microseconds) =>
        microseconds >= 100 ? microseconds.ToString("N0", CultureInfo.InvariantCulture) : microseconds.ToString("F1", CultureInfo.InvariantCulture);

    private sealed record CaseResult(string Case, double DrainMilliseconds, string? Error, LatencyRow[] Rows);
}
