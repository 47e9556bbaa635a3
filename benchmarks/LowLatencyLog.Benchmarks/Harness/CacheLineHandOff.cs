using System;
using System.Diagnostics;
using System.Globalization;
using System.Threading;
using LowLatencyLog.Engine;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// <c>--handoff [seconds]</c>: what it costs this machine to move a cache line from one core to another, the price of
/// any hand-over between a logging thread and a worker thread (an async appender moves each event's slot to the
/// worker's core and back once per lap of its buffer).
/// </summary>
/// <remarks>
/// Two threads take turns on one padded counter: each waits until the counter is odd (or even) and increments it, so
/// every increment needs the line from the other core. Half a round trip is one hand-over. Printed next to a single
/// thread incrementing the same counter (the line stays in its core) for scale. Then whether the cores are really two:
/// the same arithmetic loop (registers only, nothing shared) timed on one thread and on two threads at once. On two
/// cores of their own the two take as long as the one; sharing a physical core or a host's time, each runs slower, and
/// so does any logging thread whose worker is busy on the other core.
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

        for (int run = 0; run < 3; run++)
        {
            long iterations = (long)(seconds * 1e8);
            var clock = Stopwatch.StartNew();
            Arithmetic(iterations);
            double one = clock.Elapsed.TotalMilliseconds;
            clock.Restart();
            var second = new Thread(() => Arithmetic(iterations)) { IsBackground = true };
            second.Start();
            Arithmetic(iterations);
            second.Join();
            double two = clock.Elapsed.TotalMilliseconds;
            Console.WriteLine($"run {run + 1}: independent arithmetic on one thread {one:F0} ms, on two threads at once {two:F0} ms ({two / one:F2}x: 1.00 on two cores of their own)");
        }

        return 0;
    }

    /// <summary>A loop that touches no memory; the result is kept so the loop is not removed.</summary>
    private static long Arithmetic(long iterations)
    {
        long x = 1, y = 3;
        for (long i = 0; i < iterations; i++)
        {
            x = (x * 6364136223846793005L) + 1442695040888963407L;
            y ^= x >> 17;
        }

        Volatile.Write(ref _sink, x + y);
        return x + y;
    }

    private static long _sink;

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
