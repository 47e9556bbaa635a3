using System;
using System.Collections.Generic;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Order;
using BenchmarkDotNet.Reports;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks.EndToEnd;

/// <summary>
/// Producers log a fixed number of events through the case's API, then the pipeline is shut down; an invocation ends
/// when every event is on disk (or counted by the NullAppender). After each invocation the lines are counted and a
/// missing line fails the benchmark. Time is per event; the events/s column is its inverse.
/// </summary>
/// <remarks>
/// Each invocation gets a fresh pipeline and file (set up outside the measurement), so a file never passes
/// <c>RollingFileAppender</c>'s default 10 MB (which, with its default of 0 backups, would delete lines).
/// </remarks>
[Config(typeof(ThroughputConfig))]
[MemoryDiagnoser]
public abstract class ThroughputBenchmark
{
    /// <summary>About 7 MB of lines; divisible by every producer count.</summary>
    public const int EventsPerInvocation = 65536;

    private BenchSession? _session;
    private ProducerRun? _run;

    [ParamsSource(nameof(ProducerCounts))]
    public int Producers { get; set; }

    /// <summary>Two counts in the smoke run, to keep it short.</summary>
    public static IEnumerable<int> ProducerCounts => Program.SmokeRun ? new[] { 1, 4 } : new[] { 1, 2, 4, 8, 16 };

    /// <summary>The name of a <see cref="CaseTable"/> case.</summary>
    public abstract string Case { get; set; }

    [ParamsSource(nameof(Kinds))]
    public MessageKind Kind { get; set; }

    /// <summary>
    /// Every kind, or those named in <c>LLL_BENCH_KINDS</c> (comma-separated, e.g. <c>Format1,Constant</c>). The smoke
    /// run takes the mix: the headline kind, with errors that write multi-line exceptions.
    /// </summary>
    public static IEnumerable<MessageKind> Kinds => Program.SmokeRun
        ? new[] { MessageKind.Mixed }
        : Environment.GetEnvironmentVariable("LLL_BENCH_KINDS") is { Length: > 0 } only ? MessageKinds.Parse(only) : MessageKinds.All;

    [GlobalSetup]
    public void WarmUp() => JitWarmUp.Run(() =>
    {
        OpenPipeline();
        LogUntilOnDisk();
        CheckEveryEventArrived();
    });

    [IterationSetup]
    public void OpenPipeline()
    {
        _session = CaseTable.Get(Case).Open(Kind);
        _run = new ProducerRun(_session, Producers, EventsPerInvocation);
    }

    [Benchmark(OperationsPerInvoke = EventsPerInvocation)]
    public void LogUntilOnDisk()
    {
        _run!.Go();
        _session!.Stop();
    }

    [IterationCleanup]
    public void CheckEveryEventArrived()
    {
        BenchSession session = _session!;
        _session = null;
        _run = null;
        long delivered;
        try
        {
            delivered = session.Delivered();
        }
        finally
        {
            session.Dispose();
        }

        if (delivered != EventsPerInvocation)
        {
            throw new InvalidOperationException($"{Case}, {Kind}, {Producers} producers: {delivered} of {EventsPerInvocation} events arrived.");
        }
    }
}

internal sealed class ThroughputConfig : ManualConfig
{
    public ThroughputConfig()
    {
        if (!Program.SmokeRun)
        {
            // A fresh pipeline per invocation: one invocation per iteration, several iterations. The global setup has
            // already logged for a second and a half (JitWarmUp); these warm-ups settle the per-pipeline start. No
            // forced full collection between iterations: after one, the 10 MB log4net allocates per invocation came
            // back as fresh pages, about 5 ms per invocation (the floor measured 5.6 M/s forced, 9.7 M/s not).
            AddJob(Job.Default.WithPromptTiering()
                .WithLaunchCount(1)
                .WithWarmupCount(15)
                .WithIterationCount(7)
                .WithInvocationCount(1)
                .WithUnrollFactor(1)
                .WithGcForce(false)
                .WithId("EndToEnd"));
        }

        AddColumn(new EventsPerSecondColumn());
        if (!Program.SmokeRun)
        {
            // Smoke figures mean nothing; they must not replace a real run's CSV in the same folder.
            AddExporter(ThroughputCsvExporter.Instance);
        }

        HideColumns(Column.Error);
        WithSummaryStyle(SummaryStyle.Default.WithMaxParameterColumnWidth(40));
        WithOrderer(new DefaultOrderer(SummaryOrderPolicy.Declared));
    }
}
