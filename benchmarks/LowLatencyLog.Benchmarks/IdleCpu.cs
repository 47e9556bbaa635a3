using System;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using LowLatencyLog.Core;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// <c>--idle-cpu [seconds] [wait strategy]</c>: the CPU an async appender's worker uses while the application logs at a
/// steady, evenly spaced rate (10, 1,000 and 10,000 events/s). A worker that spins too long after every event keeps a
/// core busy in an application that barely logs; this shows how much.
/// </summary>
/// <remarks>
/// The producer paces itself by spinning on a stopwatch, so its own CPU is not the worker's: the figure is the worker
/// thread's CPU time, read from <c>/proc/self/task/*/stat</c> (Linux), over wall time. Process CPU is printed too.
/// </remarks>
internal static class IdleCpu
{
    private const string WorkerName = "lll-idle-cpu";

    public static int Run(string[] args)
    {
        int seconds = args.Length > 1 ? int.Parse(args[1], CultureInfo.InvariantCulture) : 3;
        var strategy = args.Length > 2 ? (WaitStrategyKind)Enum.Parse(typeof(WaitStrategyKind), args[2], ignoreCase: true) : WaitStrategyKind.Blocking;
        if (!Directory.Exists("/proc/self/task"))
        {
            Console.Error.WriteLine("--idle-cpu reads per-thread CPU time from /proc: Linux only.");
            return 2;
        }

        Console.WriteLine($"Worker CPU at evenly spaced rates; wait strategy {strategy}; {seconds} s per rate; {Environment.ProcessorCount} cores.");
        Console.WriteLine("| events/s | worker CPU (% of a core) | process CPU (% of a core, includes the pacing producer) | events delivered |");
        Console.WriteLine("|---|---|---|---|");
        foreach (int rate in new[] { 10, 1_000, 10_000 })
        {
            Measure(rate, seconds, strategy);
        }

        return 0;
    }

    private static void Measure(int rate, int seconds, WaitStrategyKind strategy)
    {
        var sink = new CountingSink();
        var dispatcher = new AsyncDispatcher<CapturePayload>(WorkerName, BoundedQueueFactory.Instance, 65536, sink, OverflowAction.Block, 4096, strategy);
        dispatcher.Start();
        dispatcher.Enqueue(default, false); // let the worker start and name itself
        dispatcher.Flush(10_000);

        string? task = FindTask(WorkerName);
        TimeSpan workerBefore = ThreadCpu(task);
        TimeSpan processBefore = Process.GetCurrentProcess().TotalProcessorTime;
        var clock = Stopwatch.StartNew();
        long total = (long)rate * seconds;
        double ticksPerEvent = (double)Stopwatch.Frequency / rate;
        for (long i = 0; i < total; i++)
        {
            long due = (long)(i * ticksPerEvent);
            while (clock.ElapsedTicks < due)
            {
                if (due - clock.ElapsedTicks > Stopwatch.Frequency / 500)
                {
                    Thread.Sleep(1); // far from the next event: do not spin the producer for nothing
                }
            }

            dispatcher.Enqueue(new CapturePayload(i), false);
        }

        double wall = clock.Elapsed.TotalSeconds;
        TimeSpan worker = ThreadCpu(task) - workerBefore;
        TimeSpan process = Process.GetCurrentProcess().TotalProcessorTime - processBefore;
        dispatcher.Close(10_000);
        Console.WriteLine(string.Format(
            CultureInfo.InvariantCulture,
            "| {0:N0} | {1:F1} % | {2:F1} % | {3:N0} |",
            rate,
            100 * worker.TotalSeconds / wall,
            100 * process.TotalSeconds / wall,
            sink.Count - 1));
    }

    private static string? FindTask(string name)
    {
        // Linux keeps the first 15 characters of a thread's name in comm.
        string comm = name.Length > 15 ? name.Substring(0, 15) : name;
        return Directory.GetDirectories("/proc/self/task")
            .FirstOrDefault(d => File.Exists(Path.Combine(d, "comm")) && File.ReadAllText(Path.Combine(d, "comm")).Trim() == comm);
    }

    private static TimeSpan ThreadCpu(string? task)
    {
        if (task == null)
        {
            return TimeSpan.Zero;
        }

        // Fields 14 and 15 (utime, stime) in clock ticks of 1/100 s; the name in field 2 may contain spaces.
        string stat = File.ReadAllText(Path.Combine(task, "stat"));
        string[] fields = stat.Substring(stat.LastIndexOf(')') + 2).Split(' ');
        long ticks = long.Parse(fields[11], CultureInfo.InvariantCulture) + long.Parse(fields[12], CultureInfo.InvariantCulture);
        return TimeSpan.FromMilliseconds(ticks * 10);
    }

    private sealed class CountingSink : IBatchSink<CapturePayload>
    {
        private long _count;

        public long Count => Interlocked.Read(ref _count);

        public void Deliver(CapturePayload[] items, int count) => Interlocked.Add(ref _count, count);

        public bool Flush(int timeoutMilliseconds) => true;

        public void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded)
        {
        }

        public void Close()
        {
        }

        public void ReportError(string message, Exception? exception) => Console.Error.WriteLine(message + " " + exception);
    }

    /// <summary>About the size of what the appenders capture per event.</summary>
    private readonly struct CapturePayload
    {
        private readonly long _a, _b, _c, _d, _e, _f, _g, _h, _i;

        public CapturePayload(long value)
        {
            _a = _b = _c = _d = _e = _f = _g = _h = _i = value;
        }
    }
}
