using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using HdrHistogram;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// <c>--idle-cpu [seconds] [wait strategy] [appenders]</c>: the CPU an application that barely logs pays for an async
/// appender, and how soon its lines reach the file. Each async appender (all three, or those named: BoundedQueue,
/// HotSwap, Disruptor), configured from XML in front of a RollingBufferedFileAppender, gets headline-kind calls at 10,
/// 1,000 and 10,000 events/s for <c>seconds</c> each: its worker thread's CPU, the process's, and the process's net of
/// the same pacing without logging (measured first). Then, at 10 events/s, the time from each call to its line being in
/// the file (p50, p99, max). The wait strategy is passed as configuration text, <c>&lt;waitStrategy value="..."/&gt;</c>,
/// to whichever appender runs; an appender without the setting says so in log4net's internal log.
/// </summary>
/// <remarks>
/// The producer sleeps between calls, as an idle application thread does, so that the process's CPU is the logging's:
/// with <c>Thread.Sleep(1)</c> as its step, calls at 10,000 events/s come in bursts of about ten per millisecond.
/// CPU times come from <c>/proc</c> (Linux) in steps of 10 ms: longer runs read finer.
/// </remarks>
internal static class IdleCpu
{
    private const string WorkerName = "lll-idle-cpu";
    private static readonly int[] Rates = { 10, 1_000, 10_000 };
    private static readonly string[] Appenders = { "BoundedQueue", "HotSwap", "Disruptor" };

    public static int Run(string[] args)
    {
        string? Arg(int i) => args.Length > i && args[i] != "-" ? args[i] : null;
        double seconds = Arg(1) is { } s ? double.Parse(s, CultureInfo.InvariantCulture) : 3;
        string? strategy = Arg(2);
        string[] appenders = Arg(3) is { } a
            ? a.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries).Select(Appender).ToArray()
            : Appenders;
        if (!Directory.Exists("/proc/self/task"))
        {
            Console.Error.WriteLine("--idle-cpu reads per-thread CPU time from /proc: Linux only.");
            return 2;
        }

        // At least 100 calls, so that the p99 is one.
        int fileSamples = Math.Max(100, (int)(10 * seconds));
        Console.WriteLine($"Idle CPU: {string.Join(", ", appenders)} into RollingBufferedFileAppender, wait strategy {strategy ?? "(the appender's default)"}, {seconds} s per rate, {MessageKind.Format1}; time to file over {fileSamples} calls at 10/s; {Environment.ProcessorCount} cores.");
        WarmUp(null);
        Dictionary<int, double> baseline = Rates.ToDictionary(r => r, r => Measure(null, r, seconds).Process);

        var cpu = new List<string>
        {
            "| appender | events/s | worker CPU | process CPU | net process CPU | events delivered |",
            "|---|---:|---:|---:|---:|---:|",
        };
        var file = new List<string>
        {
            "| appender | p50 (µs) | p99 (µs) | max (µs) |",
            "|---|---:|---:|---:|",
        };
        foreach (string appender in appenders)
        {
            WarmUp(Config(appender, strategy));
            foreach (int rate in Rates)
            {
                Console.WriteLine($"  {appender}, {rate:N0} events/s...");
                (double worker, double process, long delivered) = Measure(Config(appender, strategy), rate, seconds);
                cpu.Add(string.Format(CultureInfo.InvariantCulture, "| {0} | {1:N0} | {2:F1} % | {3:F1} % | {4:F1} % | {5:N0} |",
                    appender, rate, worker, process, process - baseline[rate], delivered));
            }

            Console.WriteLine($"  {appender}, time to file...");
            LongHistogram toFile = TimeToFile(Config(appender, strategy), fileSamples);
            file.Add(string.Format(CultureInfo.InvariantCulture, "| {0} | {1:F0} | {2:F0} | {3:F0} |",
                appender, toFile.GetValueAtPercentile(50) / 1000.0, toFile.GetValueAtPercentile(99) / 1000.0, toFile.GetMaxValue() / 1000.0));
        }

        Console.WriteLine();
        Console.WriteLine("CPU in % of one core; net: the process's CPU less that of the same pacing without logging (" +
            string.Join(", ", Rates.Select(r => string.Format(CultureInfo.InvariantCulture, "{0:F1} % at {1:N0}/s", baseline[r], r))) + ").");
        Console.WriteLine();
        cpu.ForEach(Console.WriteLine);
        Console.WriteLine();
        Console.WriteLine("Time from the call to its line in the file, at 10 events/s:");
        Console.WriteLine();
        file.ForEach(Console.WriteLine);
        return 0;
    }

    private static string Appender(string name) =>
        Appenders.FirstOrDefault(a => a.StartsWith(name, StringComparison.OrdinalIgnoreCase))
        ?? throw new ArgumentException($"Unknown appender {name}: {string.Join(", ", Appenders)}.");

    /// <summary>The async appender in front of RollingBufferedFileAppender, as a user configures it.</summary>
    private static string Config(string appender, string? strategy) => $"""
        <log4net>
          <appender name="{WorkerName}" type="LowLatencyLog.Appender.{appender}AsyncAppender, LowLatencyLog">
            <bufferSize value="65536" />
            {(strategy == null ? "" : $"<waitStrategy value=\"{System.Security.SecurityElement.Escape(strategy)}\" />")}
            <appender-ref ref="File" />
          </appender>
          {CaseTable.RollingBufferedFileAppender("File")}
          <root>
            <level value="INFO" />
            <appender-ref ref="{WorkerName}" />
          </root>
        </log4net>
        """;

    /// <summary>
    /// Paced calls enough for the tiered JIT to promote the code on both threads, then a pause for its background
    /// compilation, which would otherwise land in the first measurements. Paced, because the worker's per-batch code
    /// runs once per event only when events come one at a time.
    /// </summary>
    private static void WarmUp(string? xml)
    {
        Measure(xml, 1_000, 0.5);
        Measure(xml, 10_000, 0.2);
        Thread.Sleep(500);
    }

    /// <summary>CPU in % of a core over a paced run; with no configuration, the pacing alone.</summary>
    private static (double Worker, double Process, long Delivered) Measure(string? xml, int rate, double seconds)
    {
        using BenchSession session = xml == null ? new NoLoggingSession(MessageKind.Format1) : new Log4netSession(xml, null, MessageKind.Format1);
        session.Log(0); // let the worker start and name itself
        Thread.Sleep(100);
        string? task = xml == null ? null : FindTask(WorkerName);
        TimeSpan workerBefore = ThreadCpu(task);
        TimeSpan processBefore = ProcessCpu();
        var clock = Stopwatch.StartNew();
        long total = (long)(rate * seconds);
        double ticksPerEvent = (double)Stopwatch.Frequency / rate;
        for (int i = 1; i <= total; i++)
        {
            long due = (long)(i * ticksPerEvent);
            while (clock.ElapsedTicks < due)
            {
                Thread.Sleep(1);
            }

            session.Log(i);
        }

        double wall = clock.Elapsed.TotalSeconds;
        TimeSpan worker = ThreadCpu(task) - workerBefore;
        TimeSpan process = ProcessCpu() - processBefore;
        session.Stop();
        return (100 * worker.TotalSeconds / wall, 100 * process.TotalSeconds / wall, session.Delivered() - 1); // less the starting call
    }

    /// <summary>Nanoseconds from each call (10 per second) to the file's length taking its line in.</summary>
    private static LongHistogram TimeToFile(string xml, int samples)
    {
        var histogram = new LongHistogram(60L * 1_000_000_000, 3);
        using BenchSession session = new Log4netSession(xml, null, MessageKind.Format1);
        var file = new FileInfo(Path.Combine(session.Folder, "app.log"));
        long Length()
        {
            file.Refresh();
            return file.Exists ? file.Length : 0;
        }

        var clock = Stopwatch.StartNew();
        long ticksPerEvent = Stopwatch.Frequency / 10;
        for (int i = 0; i < samples; i++)
        {
            while (clock.ElapsedTicks < i * ticksPerEvent)
            {
                Thread.Sleep(1);
            }

            long before = Length();
            long start = Stopwatch.GetTimestamp();
            session.Log(i);
            // Polled without sleeping: a millisecond's sleep would be most of what is measured.
            while (Length() <= before)
            {
                if (Stopwatch.GetElapsedTime(start).TotalSeconds > 10)
                {
                    throw new InvalidOperationException($"Call {i} was not in {file.FullName} after 10 s.");
                }

                Thread.Yield();
            }

            histogram.RecordValue(Math.Max(1, (long)Stopwatch.GetElapsedTime(start).TotalNanoseconds));
        }

        session.Stop();
        return histogram;
    }

    private static string? FindTask(string name)
    {
        // Linux keeps the first 15 characters of a thread's name in comm.
        string comm = name.Length > 15 ? name.Substring(0, 15) : name;
        return Directory.GetDirectories("/proc/self/task")
            .FirstOrDefault(d => File.Exists(Path.Combine(d, "comm")) && File.ReadAllText(Path.Combine(d, "comm")).Trim() == comm);
    }

    /// <summary>A thread's CPU time from <c>schedstat</c>, in nanoseconds as the scheduler counts it: the tick-sampled
    /// <c>stat</c> fields charge a whole 10 ms tick to a thread that a timer wakes just as the tick fires, which
    /// overstates a worker that polls on a timer several times.</summary>
    private static TimeSpan ThreadCpu(string? task)
    {
        if (task == null)
        {
            return TimeSpan.Zero;
        }

        try
        {
            string schedstat = File.ReadAllText(Path.Combine(task, "schedstat"));
            return TimeSpan.FromTicks(long.Parse(schedstat.Split(' ')[0], CultureInfo.InvariantCulture) / 100);
        }
        catch (IOException)
        {
            return TimeSpan.Zero; // the thread ended
        }
    }

    /// <summary>The process's CPU time, threads that ended included (the kernel's tick-sampled total).</summary>
    private static TimeSpan ProcessCpu() => Process.GetCurrentProcess().TotalProcessorTime;
}
