using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Diagnostics.Metrics;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using System.Xml;
using log4net;
using log4net.Config;
using log4net.Repository;
using LowLatencyLog.Appender;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Benchmarks.Csv;
using LowLatencyLog.Benchmarks.Quick;

namespace LowLatencyLog.Benchmarks.Soak;

/// <summary>
/// <c>--soak [seconds] [appender] [csv]</c>: <c>seconds</c> per mode (default 600) at full rate from four producers
/// through an async appender configured from XML into a <see cref="RollingBufferedFileAppender"/>, first with
/// <c>overflow=Block</c>, then with <c>Discard</c>. Every second it samples the working set, the GC heap, GC counts,
/// the queue depth (from the <c>LowLatencyLog</c> meter), events sent, delivered and discarded, into a CSV (and a
/// chart). At the end of each mode it checks: sent = delivered + discarded exactly, nothing left undelivered, the
/// events' lines across every rolled file = delivered, and the working set flat (the last third's peak at most
/// 1.5 times the first third's peak plus 64 MB). Exits 1 on a violation. <c>--soak-smoke</c>: 15 s per mode (CI).
/// </summary>
/// <remarks>Rolled files are counted and deleted while the run goes on, so disk use stays at a few files whatever
/// the duration.</remarks>
internal static class SoakCommand
{
    private const int Producers = 4;
    private const long MaximumFileSize = 32L * 1024 * 1024;

    public static int Run(string[] args)
    {
        double seconds = args.Length > 1 ? double.Parse(args[1], CultureInfo.InvariantCulture) : 600;
        string appender = args.Length > 2 ? TypeName(args[2]) : nameof(DisruptorAsyncAppender);
        string csv = args.Length > 3 ? args[3] : Path.Combine(ResultsFolder.Path, $"soak-{appender}.csv");
        return Soak(seconds, appender, csv);
    }

    /// <summary>About 30 seconds: 15 s Block, 15 s Discard, the same checks, the CSV and chart written and removed.</summary>
    public static int Smoke()
    {
        string folder = BenchSession.NewFolder();
        try
        {
            return Soak(15, nameof(DisruptorAsyncAppender), Path.Combine(folder, "soak.csv"));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    private static string TypeName(string name) =>
        new[] { nameof(DisruptorAsyncAppender), nameof(BoundedQueueAsyncAppender), nameof(HotSwapAsyncAppender) }
            .FirstOrDefault(t => t.StartsWith(name, StringComparison.OrdinalIgnoreCase))
        ?? throw new ArgumentException($"Unknown appender {name}: Disruptor, BoundedQueue or HotSwap.");

    private static int Soak(double seconds, string appender, string csv)
    {
        Console.WriteLine($"Soak: {appender} into RollingBufferedFileAppender, {Producers} producers at full rate, {seconds} s with overflow=Block then {seconds} s with Discard; {Environment.ProcessorCount} cores.");
        var rows = new List<string>();
        var problems = new List<string>();
        foreach (string mode in new[] { "Block", "Discard" })
        {
            problems.AddRange(RunMode(mode, seconds, appender, rows).Select(p => $"{mode}: {p}"));
        }

        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(csv))!);
        File.WriteAllLines(csv, new[] { SoakCsv.Header }.Concat(rows));
        Console.WriteLine($"CSV: {csv} (charts: dotnet run -c Release --project tools/LowLatencyLog.Charts -- soak {csv})");

        foreach (string problem in problems)
        {
            Console.WriteLine("soak: " + problem);
        }

        Console.WriteLine("soak: " + (problems.Count == 0 ? "ok" : problems.Count + " violation(s)"));
        return problems.Count == 0 ? 0 : 1;
    }

    private static List<string> RunMode(string mode, double seconds, string appender, List<string> csvRows)
    {
        string folder = BenchSession.NewFolder();
        ILoggerRepository repository = LogManager.CreateRepository("soak-" + Guid.NewGuid().ToString("N"));
        try
        {
            var document = new XmlDocument();
            document.LoadXml(Config(appender, mode, Path.Combine(folder, "soak.log")));
            XmlConfigurator.Configure(repository, document.DocumentElement!);
            var async = (AsyncForwardingAppender)repository.GetAppenders().Single(a => a.Name == "async");
            ILog log = LogManager.GetLogger(repository.Name, "soak");
            var files = new LineCounter(folder, "soak.log");
            using var depth = new QueueDepth("async");

            var sent = new PaddedCounters(Producers);
            bool stop = false;
            Thread[] producers = Enumerable.Range(0, Producers).Select(p => new Thread(() =>
            {
                long n = 0;
                while (!Volatile.Read(ref stop))
                {
                    log.Info("soak producer " + p + " event " + n + " with a payload of a typical length for a log line");
                    n++;
                    if ((n & 255) == 0)
                    {
                        sent.Set(p, n);
                    }
                }

                sent.Set(p, n);
            }) { IsBackground = true, Name = "soak-" + p }).ToArray();

            var process = Process.GetCurrentProcess();
            int[] gcStart = { GC.CollectionCount(0), GC.CollectionCount(1), GC.CollectionCount(2) };
            var workingSet = new List<double>();
            var clock = Stopwatch.StartNew();
            foreach (Thread t in producers)
            {
                t.Start();
            }

            for (int second = 1; second <= (int)Math.Ceiling(seconds); second++)
            {
                // Sleep to the next whole second of the run, so that counting files does not shift the samples.
                int wait = (int)(second * 1000 - clock.ElapsedMilliseconds);
                if (wait > 0)
                {
                    Thread.Sleep(wait);
                }

                process.Refresh();
                double ws = process.WorkingSet64 / 1048576.0;
                workingSet.Add(ws);
                csvRows.Add(string.Join(",", mode, second.ToString(CultureInfo.InvariantCulture), ws.ToString("F1", CultureInfo.InvariantCulture),
                    (GC.GetTotalMemory(false) / 1048576.0).ToString("F1", CultureInfo.InvariantCulture),
                    GC.CollectionCount(0) - gcStart[0], GC.CollectionCount(1) - gcStart[1], GC.CollectionCount(2) - gcStart[2],
                    depth.Read(), sent.Sum(), async.DeliveredCount, async.DiscardedCount));
                if (second % 10 == 0)
                {
                    Console.WriteLine($"  {mode} {second,4} s: working set {ws:F0} MB, queue {depth.Read():N0}, sent {sent.Sum():N0}, delivered {async.DeliveredCount:N0}, discarded {async.DiscardedCount:N0}");
                }

                files.CountRolled();
            }

            Volatile.Write(ref stop, true);
            foreach (Thread t in producers)
            {
                t.Join();
            }

            double runSeconds = clock.Elapsed.TotalSeconds;
            repository.Shutdown(); // closes the async appender: drains the queue into the file appender, then closes it
            files.CountAll();

            long total = sent.Sum();
            long delivered = async.DeliveredCount;
            long discarded = async.DiscardedCount;
            long undelivered = async.UndeliveredCount;
            Console.WriteLine($"{mode}: {total:N0} sent in {runSeconds:F0} s ({total / runSeconds:N0}/s), {delivered:N0} delivered, {discarded:N0} discarded " +
                $"({(total == 0 ? 0 : 100.0 * discarded / total):F1}%), {undelivered:N0} undelivered; {files.EventLines:N0} event lines and {files.OtherLines:N0} discard reports in {files.Files} files; " +
                $"working set first third peak {Third(workingSet, 0).DefaultIfEmpty().Max():F0} MB, last third peak {Third(workingSet, 2).DefaultIfEmpty().Max():F0} MB; " +
                $"GC {GC.CollectionCount(0) - gcStart[0]}/{GC.CollectionCount(1) - gcStart[1]}/{GC.CollectionCount(2) - gcStart[2]} (gen0/1/2)");

            var problems = new List<string>();
            if (total != delivered + discarded)
            {
                problems.Add($"sent {total} != delivered {delivered} + discarded {discarded}");
            }

            if (undelivered != 0)
            {
                problems.Add($"{undelivered} events left undelivered at Close");
            }

            if (files.EventLines != delivered)
            {
                problems.Add($"{files.EventLines} event lines in the files, {delivered} delivered");
            }

            if (mode == "Block" && discarded != 0)
            {
                problems.Add($"{discarded} discarded under overflow=Block");
            }

            double first = Third(workingSet, 0).DefaultIfEmpty().Max();
            double last = Third(workingSet, 2).DefaultIfEmpty().Max();
            if (last > 1.5 * first + 64)
            {
                problems.Add($"working set grew: last third peak {last:F0} MB > 1.5 x first third peak {first:F0} MB + 64 MB");
            }

            return problems;
        }
        finally
        {
            repository.Shutdown();
            Directory.Delete(folder, recursive: true);
        }
    }

    private static IEnumerable<double> Third(List<double> values, int which)
    {
        int size = values.Count / 3;
        return values.Skip(which == 2 ? values.Count - size : which * size).Take(size);
    }

    // Size rolls, every backup kept and never renamed (countDirection >= 0), so a backup is complete once it exists.
    // discardThreshold INFO (the default) makes the test's events discardable; the discard reports are WARN lines.
    private static string Config(string appender, string mode, string file) => $"""
        <log4net>
          <appender name="async" type="LowLatencyLog.Appender.{appender}, LowLatencyLog">
            <overflow value="{mode}" />
            <shutdownTimeout value="300000" />
            <appender-ref ref="file" />
          </appender>
          <appender name="file" type="LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog">
            <file value="{System.Security.SecurityElement.Escape(file)}" />
            <appendToFile value="false" />
            <rollingStyle value="Size" />
            <maximumFileSize value="{MaximumFileSize}" />
            <maxSizeRollBackups value="-1" />
            <countDirection value="1" />
            <layout type="log4net.Layout.PatternLayout"><conversionPattern value="%-5level [%thread] %message%newline" /></layout>
          </appender>
          <root><level value="ALL" /><appender-ref ref="async" /></root>
        </log4net>
        """;

    /// <summary>Per-producer counts on separate cache lines, so that publishing them costs the producers nothing shared.</summary>
    private sealed class PaddedCounters
    {
        private const int Stride = 16;
        private readonly long[] _values;

        public PaddedCounters(int count) => _values = new long[(count + 1) * Stride];

        public void Set(int index, long value) => Volatile.Write(ref _values[(index + 1) * Stride], value);

        public long Sum()
        {
            long sum = 0;
            for (int i = 1; i * Stride < _values.Length; i++)
            {
                sum += Volatile.Read(ref _values[i * Stride]);
            }

            return sum;
        }
    }

    /// <summary>The async appender's queue depth, read from the <c>LowLatencyLog</c> meter as a monitoring tool would.</summary>
    private sealed class QueueDepth : IDisposable
    {
        private readonly MeterListener _listener = new MeterListener();
        private long _value = -1;

        public QueueDepth(string appender)
        {
            _listener.InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == "LowLatencyLog" && instrument.Name == "lowlatencylog.queue.depth")
                {
                    l.EnableMeasurementEvents(instrument);
                }
            };
            _listener.SetMeasurementEventCallback<long>((_, value, tags, _) =>
            {
                foreach (KeyValuePair<string, object?> tag in tags)
                {
                    if (tag.Key == "appender" && (string?)tag.Value == appender)
                    {
                        _value = value;
                    }
                }
            });
            _listener.Start();
        }

        public long Read()
        {
            _value = -1;
            _listener.RecordObservableInstruments();
            return _value;
        }

        public void Dispose() => _listener.Dispose();
    }

    /// <summary>Counts the lines of the rolled files (then deletes them) and, at the end, of every file left.</summary>
    private sealed class LineCounter
    {
        private readonly string _folder;
        private readonly string _name;

        public LineCounter(string folder, string name)
        {
            _folder = folder;
            _name = name;
        }

        /// <summary>Lines logged by the producers (level INFO).</summary>
        public long EventLines { get; private set; }

        /// <summary>Other lines: the appender's WARN reports of discarded events.</summary>
        public long OtherLines { get; private set; }

        public int Files { get; private set; }

        /// <summary>Every backup but the newest (a roll in progress could still be renaming it).</summary>
        public void CountRolled()
        {
            (string Path, int Number)[] backups = Backups();
            foreach (var backup in backups.Where(b => b.Number < backups.Max(x => x.Number)))
            {
                Count(backup.Path);
            }
        }

        public void CountAll()
        {
            foreach (var backup in Backups())
            {
                Count(backup.Path);
            }

            string current = Path.Combine(_folder, _name);
            if (File.Exists(current))
            {
                Count(current);
            }
        }

        private (string Path, int Number)[] Backups() =>
            Directory.GetFiles(_folder, _name + ".*")
                .Select(p => (Path: p, Ok: int.TryParse(Path.GetExtension(p).TrimStart('.'), NumberStyles.None, CultureInfo.InvariantCulture, out int n), Number: n))
                .Where(b => b.Ok)
                .Select(b => (b.Path, b.Number))
                .ToArray();

        private void Count(string path)
        {
            var buffer = new byte[1 << 20];
            bool lineStart = true;
            using (var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1, FileOptions.SequentialScan))
            {
                int read;
                while ((read = stream.Read(buffer, 0, buffer.Length)) > 0)
                {
                    for (int i = 0; i < read; i++)
                    {
                        if (lineStart)
                        {
                            if (buffer[i] == (byte)'I')
                            {
                                EventLines++;
                            }
                            else
                            {
                                OtherLines++;
                            }
                        }

                        lineStart = buffer[i] == (byte)'\n';
                    }
                }
            }

            Files++;
            File.Delete(path);
        }
    }
}
