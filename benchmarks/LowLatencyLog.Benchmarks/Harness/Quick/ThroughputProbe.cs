using System;
using System.Diagnostics;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks.Quick;

/// <summary>One end-to-end run: events/s, the bytes each producer thread allocated per call, and the collections.</summary>
/// <param name="Gen0">Collections of generation 0 during the run (as <see cref="GC.CollectionCount"/> counts them:
/// a gen1 or gen2 collection counts here too).</param>
/// <param name="CpuSecondsPerMillion">The process's CPU time (every thread: producers, worker, collector) per million events.</param>
internal readonly record struct Probe(double EventsPerSecond, double BytesPerCall, int Gen0, int Gen1, int Gen2, double CpuSecondsPerMillion);

/// <summary>
/// One end-to-end measurement outside BenchmarkDotNet, the same way <see cref="EndToEnd.ThroughputBenchmark"/> does
/// it: a fresh pipeline, producers held at a gate, timed from the gate to the end of shutdown, every line checked.
/// </summary>
internal static class ThroughputProbe
{
    public const int Events = EndToEnd.ThroughputBenchmark.EventsPerInvocation;

    public static Probe Measure(BenchCase benchCase, MessageKind kind, int producers, int events = Events)
    {
        using BenchSession session = benchCase.Open(kind);
        var run = new ProducerRun(session, producers, events);

        // Each run starts from a collected heap, outside the timing: the garbage of the case measured before (NLog's
        // queue, promoted while it filled) otherwise set off a full collection in the next case's run now and then,
        // which halved the floor's first cell in a round (3.8 against 10-11 M/s).
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        int gen0 = GC.CollectionCount(0), gen1 = GC.CollectionCount(1), gen2 = GC.CollectionCount(2);
        using Process process = Process.GetCurrentProcess();
        TimeSpan cpu = process.TotalProcessorTime;
        long start = Stopwatch.GetTimestamp();
        run.Go();
        session.Stop();
        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        process.Refresh();
        double cpuSeconds = (process.TotalProcessorTime - cpu).TotalSeconds;
        var probe = new Probe(events / seconds, run.BytesPerCall,
            GC.CollectionCount(0) - gen0, GC.CollectionCount(1) - gen1, GC.CollectionCount(2) - gen2, cpuSeconds * 1e6 / events);
        long delivered = session.Delivered();
        if (delivered != events)
        {
            throw new InvalidOperationException($"{benchCase.Name}, {kind}, {producers} producers: {delivered} of {events} events arrived.");
        }

        return probe;
    }
}
