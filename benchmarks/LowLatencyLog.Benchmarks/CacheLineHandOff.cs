using System;
using System.Diagnostics;
using System.Globalization;
using System.Threading;
using LowLatencyLog.Core;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// <c>--handoff [seconds]</c>: what it costs this machine to move a cache line from one core to another, the price of
/// any hand-over between a logging thread and a worker thread (an async appender moves each event's slot to the
/// worker's core and back once per lap of its buffer).
/// </summary>
/// <remarks>
/// Two threads take turns on one padded counter: each waits until the counter is odd (or even) and increments it, so
/// every increment needs the line from the other core. Half a round trip is one hand-over. Printed next to a single
/// thread incrementing the same counter (the line stays in its core) for scale.
/// </remarks>
internal static class CacheLineHandOff
{
    private static PaddedLong _counter;

    public static int Run(string[] args)
    {
        double seconds = args.Length > 1 ? double.Parse(args[1], CultureInfo.InvariantCulture) : 2;
        Console.WriteLine($"Cache-line hand-over between two threads; {Environment.ProcessorCount} cores; {seconds} s per run.");
        for (int run = 0; run < 3; run++)
        {
            double alone = Alone(seconds / 4);
            double handOff = PingPong(seconds);
            Console.WriteLine($"run {run + 1}: one hand-over {handOff:F0} ns (a line moving to the other core); the same increment on one core {alone:F1} ns");
        }

        return 0;
    }

    private static double Alone(double seconds)
    {
        long n = 0;
        var clock = Stopwatch.StartNew();
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            for (int i = 0; i < 1000; i++)
            {
                Volatile.Write(ref _counter.Value, Volatile.Read(ref _counter.Value) + 1);
            }

            n += 1000;
        }

        return clock.Elapsed.TotalMilliseconds * 1e6 / n;
    }

    private static double PingPong(double seconds)
    {
        Volatile.Write(ref _counter.Value, 0);
        bool stop = false;
        var other = new Thread(() =>
        {
            while (!Volatile.Read(ref stop))
            {
                long value = Volatile.Read(ref _counter.Value);
                if ((value & 1) == 1)
                {
                    Volatile.Write(ref _counter.Value, value + 1);
                }
            }
        }) { IsBackground = true };
        other.Start();

        var clock = Stopwatch.StartNew();
        long turns = 0;
        while (clock.Elapsed.TotalSeconds < seconds)
        {
            for (int i = 0; i < 1000; i++)
            {
                long value;
                while (((value = Volatile.Read(ref _counter.Value)) & 1) == 1)
                {
                }

                Volatile.Write(ref _counter.Value, value + 1);
            }

            turns += 1000;
        }

        double elapsedNs = clock.Elapsed.TotalMilliseconds * 1e6;
        Volatile.Write(ref stop, true);
        other.Join();
        return elapsedNs / (turns * 2); // each turn is two hand-overs: to the other thread and back
    }
}
