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
