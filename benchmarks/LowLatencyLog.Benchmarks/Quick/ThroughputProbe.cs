using System;
using System.Diagnostics;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks.Quick;

/// <summary>
/// One end-to-end measurement outside BenchmarkDotNet, the same way <see cref="EndToEnd.ThroughputBenchmark"/> does
/// it: a fresh pipeline, producers held at a gate, timed from the gate to the end of shutdown, every line checked.
/// </summary>
internal static class ThroughputProbe
{
    public const int Events = EndToEnd.ThroughputBenchmark.EventsPerInvocation;

    /// <summary>Events per second, end to end.</summary>
    public static double Measure(BenchCase benchCase, int producers, int events = Events)
    {
        using BenchSession session = benchCase.Open();
        var run = new ProducerRun(session, producers, events);

        // Each run starts from a collected heap, outside the timing: the garbage of the case measured before (NLog's
        // queue, promoted while it filled) otherwise set off a full collection in the next case's run now and then,
        // which halved the floor's first cell in a round (3.8 against 10-11 M/s).
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        long start = Stopwatch.GetTimestamp();
        run.Go();
        session.Stop();
        double seconds = Stopwatch.GetElapsedTime(start).TotalSeconds;
        long delivered = session.Delivered();
        if (delivered != events)
        {
            throw new InvalidOperationException($"{benchCase.Name}, {producers} producers: {delivered} of {events} events arrived.");
        }

        return events / seconds;
    }
}
