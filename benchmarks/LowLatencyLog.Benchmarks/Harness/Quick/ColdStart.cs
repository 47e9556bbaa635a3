using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text.Json;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Benchmarks.Csv;

namespace LowLatencyLog.Benchmarks.Quick;

/// <summary>
/// <c>--cold [cases] [kinds] [csv]</c>: what logging does in a process's first moments. For each case and message
/// kind a new process (<c>dotnet &lt;this dll&gt; --cold-child &lt;case&gt; &lt;kind&gt;</c>) logs from one thread as
/// fast as it can on a fresh pipeline: the rate of its first 500,000 calls and of its first second. It then keeps
/// logging on fresh pipelines for a few seconds and measures a last fresh pipeline the same way: the warm rate. The
/// ratio cold/warm is what a just-started application gets of the steady rate.
/// </summary>
/// <remarks>
/// The child runs with the runtime's default tiering (the call-counting delay at its default 100 ms, overriding the
/// project's 0, see <see cref="JitWarmUp"/>): an application starts that way. Rates are the calling thread's (calls
/// returned per second); an async case's buffer takes the first 65,536 calls, after which the thread goes at the
/// worker's pace. Every call is checked to have arrived after each pipeline is shut down.
/// </remarks>
internal static class ColdStart
{
    private const int FirstEvents = 500_000;
    private const string ResultPrefix = "cold-child: ";
    private static readonly TimeSpan WarmUp = TimeSpan.FromSeconds(4);

    /// <summary>Cases whose files keep every line (no backups deleted on roll), the floor and the file appender alone first.</summary>
    private static readonly string[] DefaultCases =
    {
        CaseTable.Floor, CaseTable.SyncFile,
        "BoundedQueue+RollingBufferedFile", "HotSwap+RollingBufferedFile", "Disruptor+RollingBufferedFile",
    };

    public static int Run(string[] args)
    {
        string? Arg(int i) => args.Length > i && args[i] != "-" ? args[i] : null;
        BenchCase[] cases = (Arg(1)?.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries) ?? DefaultCases)
            .Select(CaseTable.Get).Where(c => c.Available || Arg(1) != null).ToArray();
        MessageKind[] kinds = Arg(2) is { } k ? MessageKinds.Parse(k) : new[] { MessageKind.Format1 };
        string csv = Arg(3) ?? Path.Combine(ResultsFolder.Path, "cold-start.csv");
        Console.WriteLine($"Cold start: {cases.Length} cases x {kinds.Length} message kind(s), each in a new process: the first {FirstEvents:N0} calls and the first second, against a fresh pipeline after {WarmUp.TotalSeconds:F0} s of logging in the same process; {Environment.ProcessorCount} cores.");

        var results = new List<ChildResult>();
        bool failed = false;
        foreach (MessageKind kind in kinds)
        {
            foreach (BenchCase benchCase in cases)
            {
                Console.WriteLine($"  {benchCase.Name}, {kind}...");
                ChildResult? result = RunChild(benchCase.Name, kind);
                if (result == null)
                {
                    failed = true;
                }
                else
                {
                    results.Add(result);
                }
            }
        }

        Console.WriteLine();
        foreach (var byKind in results.GroupBy(r => r.Kind))
        {
            MessageKind kind = Enum.Parse<MessageKind>(byKind.Key);
            Console.WriteLine($"{kind}: {MessageKinds.Label(kind)}");
            Console.WriteLine();
            Console.WriteLine("| case | first 500k calls, cold | warm | cold/warm | first second, cold | warm | cold/warm | open (ms), cold/warm | B/call, cold/warm | gen0/1/2, cold / warm |");
            Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
            foreach (ChildResult r in byKind)
            {
                Console.WriteLine(string.Format(
                    CultureInfo.InvariantCulture,
                    "| {0} | {1} | {2} | {3:F2} | {4} | {5} | {6:F2} | {7:F0} / {8:F0} | {9:F0} / {10:F0} | {11} / {12} |",
                    r.Case,
                    RateText.Format(r.Cold.FirstEventsRate), RateText.Format(r.Warm.FirstEventsRate), r.Cold.FirstEventsRate / r.Warm.FirstEventsRate,
                    RateText.Format(r.Cold.FirstSecondRate), RateText.Format(r.Warm.FirstSecondRate), r.Cold.FirstSecondRate / r.Warm.FirstSecondRate,
                    r.Cold.OpenMilliseconds, r.Warm.OpenMilliseconds, r.Cold.BytesPerCall, r.Warm.BytesPerCall,
                    $"{r.Cold.Gen0}/{r.Cold.Gen1}/{r.Cold.Gen2}", $"{r.Warm.Gen0}/{r.Warm.Gen1}/{r.Warm.Gen2}"));
            }

            Console.WriteLine();
        }

        Console.WriteLine("Calls per second on the calling thread, one producer. open: configuring the pipeline. B/call: bytes the calling thread allocated per call. gen0/1/2: collections while logging.");
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(csv))!);
        File.WriteAllLines(csv, new[] { "case,kind,phase,open_ms,first_500k_calls_per_second,first_second_calls_per_second,producer_bytes_per_call,gen0,gen1,gen2" }
            .Concat(results.SelectMany(r => new[] { ("cold", r.Cold), ("warm", r.Warm) }.Select(p => string.Join(",",
                r.Case, r.Kind, p.Item1,
                p.Item2.OpenMilliseconds.ToString("F1", CultureInfo.InvariantCulture),
                p.Item2.FirstEventsRate.ToString("F0", CultureInfo.InvariantCulture),
                p.Item2.FirstSecondRate.ToString("F0", CultureInfo.InvariantCulture),
                p.Item2.BytesPerCall.ToString("F1", CultureInfo.InvariantCulture),
                p.Item2.Gen0, p.Item2.Gen1, p.Item2.Gen2)))));
        Console.WriteLine($"CSV: {csv}");
        return failed ? 1 : 0;
    }

    /// <summary><c>--cold-child &lt;case&gt; &lt;kind&gt;</c>: the measurement inside the new process; prints one JSON line.</summary>
    public static int Child(string[] args)
    {
        BenchCase benchCase = CaseTable.Get(args[1]);
        MessageKind kind = MessageKinds.Parse(args[2]).Single();
        Phase cold = Measure(benchCase, kind);
        var warmUp = Stopwatch.StartNew();
        while (warmUp.Elapsed < WarmUp)
        {
            Measure(benchCase, kind);
        }

        Phase warm = Measure(benchCase, kind);
        Console.WriteLine(ResultPrefix + JsonSerializer.Serialize(new ChildResult(benchCase.Name, kind.ToString(), cold, warm)));
        return 0;
    }

    /// <summary>A fresh pipeline, logged into until both the first 500,000 calls and the first second have passed.</summary>
    private static Phase Measure(BenchCase benchCase, MessageKind kind)
    {
        long openStart = Stopwatch.GetTimestamp();
        using BenchSession session = benchCase.Open(kind);
        double openMilliseconds = Stopwatch.GetElapsedTime(openStart).TotalMilliseconds;

        int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
        long allocated = GC.GetAllocatedBytesForCurrentThread();
        long start = Stopwatch.GetTimestamp();
        long oneSecond = start + Stopwatch.Frequency;
        long firstEventsTicks = 0;
        long firstSecondTicks = 0;
        int firstSecondCalls = 0;
        int i = 0;
        while (firstEventsTicks == 0 || firstSecondTicks == 0)
        {
            session.Log(i);
            i++;
            if (i == FirstEvents)
            {
                firstEventsTicks = Stopwatch.GetTimestamp() - start;
            }

            // The clock read only every 256 calls, so that it costs the fast cases nothing measurable.
            if (firstSecondTicks == 0 && (i & 255) == 0)
            {
                long now = Stopwatch.GetTimestamp();
                if (now >= oneSecond)
                {
                    firstSecondTicks = now - start;
                    firstSecondCalls = i;
                }
            }
        }

        double bytesPerCall = (double)(GC.GetAllocatedBytesForCurrentThread() - allocated) / i;
        var phase = new Phase(
            openMilliseconds,
            FirstEvents * (double)Stopwatch.Frequency / firstEventsTicks,
            firstSecondCalls * (double)Stopwatch.Frequency / firstSecondTicks,
            bytesPerCall,
            GC.CollectionCount(0) - gen0,
            GC.CollectionCount(1) - gen1,
            GC.CollectionCount(2) - gen2);
        session.Stop();
        long delivered = session.Delivered();
        if (delivered != i)
        {
            throw new InvalidOperationException($"{benchCase.Name}, {kind}: {delivered} of {i} events arrived.");
        }

        return phase;
    }

    private static ChildResult? RunChild(string caseName, MessageKind kind)
    {
        // The runtime's default; the project's runtimeconfig sets 0, and environment variables win over it (.NET 9+).
        var environment = new Dictionary<string, string> { ["DOTNET_TC_CallCountingDelayMs"] = "100" };
        ChildResult? result = ChildRun.Run<ChildResult>(new[] { "--cold-child", caseName, kind.ToString() }, ResultPrefix, environment, out string failure);
        if (result == null)
        {
            Console.WriteLine($"  {caseName}, {kind}: the child failed ({failure}");
        }

        return result;
    }

    /// <summary>One fresh pipeline's figures; rates in calls per second.</summary>
    internal sealed record Phase(double OpenMilliseconds, double FirstEventsRate, double FirstSecondRate, double BytesPerCall, int Gen0, int Gen1, int Gen2);

    internal sealed record ChildResult(string Case, string Kind, Phase Cold, Phase Warm);
}
