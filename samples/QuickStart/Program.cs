using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Threading;
using log4net;
using log4net.Config;
using log4net.Repository;
using LowLatencyLog.Appender;

namespace QuickStart;

/// <summary>
/// Four threads log through <see cref="DisruptorAsyncAppender"/> into <see cref="RollingBufferedFileAppender"/>,
/// configured by the log4net.config next to the program; then log4net is shut down and the file is checked line by line.
/// Usage: QuickStart [events-per-thread] [threads] [file]. Exits 1 if any line is missing.
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        int perThread = args.Length > 0 ? int.Parse(args[0]) : 250_000;
        int threads = args.Length > 1 ? int.Parse(args[1]) : 4;
        string path = Path.GetFullPath(args.Length > 2 ? args[2] : Path.Combine(Path.GetTempPath(), "lowlatencylog-quickstart.log"));

        // log4net.config names the file through an environment variable, so the file can be chosen on the command line.
        Environment.SetEnvironmentVariable("LOWLATENCYLOG_QUICKSTART_FILE", path);
        ILoggerRepository repository = LogManager.GetRepository(Assembly.GetEntryAssembly()!);
        XmlConfigurator.Configure(repository, new FileInfo(Path.Combine(AppContext.BaseDirectory, "log4net.config")));
        var async = repository.GetAppenders().OfType<AsyncForwardingAppender>().Single();
        ILog log = LogManager.GetLogger(typeof(Program));

        var clock = Stopwatch.StartNew();
        var producers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            for (int i = 0; i < perThread; i++)
            {
                log.InfoFormat("producer {0} event {1}", t, i);
            }
        }) { Name = "producer-" + t }).ToArray();
        foreach (var thread in producers)
        {
            thread.Start();
        }

        foreach (var thread in producers)
        {
            thread.Join();
        }

        TimeSpan logging = clock.Elapsed;
        long discarded = async.DiscardedCount;
        LogManager.Shutdown(); // drains the queue, flushes and closes the file
        TimeSpan total = clock.Elapsed;

        long expected = (long)perThread * threads;
        var seen = new int[threads];
        long lines = 0, outOfOrder = 0;
        foreach (string line in File.ReadLines(path))
        {
            lines++;
            int at = line.LastIndexOf(" - producer ", StringComparison.Ordinal);
            string[] parts = line.Substring(at + 12).Split(' ');
            int producer = int.Parse(parts[0]);
            int sequence = int.Parse(parts[2]);
            if (sequence != seen[producer]++)
            {
                outOfOrder++;
            }
        }

        Console.WriteLine($"| appender | {async.GetType().Name} -> RollingBufferedFileAppender |");
        Console.WriteLine("|---|---|");
        Console.WriteLine($"| events | {threads} threads x {perThread:N0} = {expected:N0} |");
        Console.WriteLine($"| events/s on the calling threads | {expected / logging.TotalSeconds:N0} (time spent in log calls) |");
        Console.WriteLine($"| events/s end to end | {expected / total.TotalSeconds:N0} (until the file was closed) |");
        Console.WriteLine($"| lines on disk | {lines:N0} of {expected:N0}, {outOfOrder:N0} out of order |");
        Console.WriteLine($"| discarded | {discarded:N0} |");
        Console.WriteLine($"| file | {path} |");
        bool ok = lines == expected && outOfOrder == 0 && seen.All(n => n == perThread) && discarded == 0;
        Console.WriteLine(ok ? "OK" : "FAILED");
        return ok ? 0 : 1;
    }
}
