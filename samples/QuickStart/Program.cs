using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using LowLatencyLog.Core;

namespace QuickStart;

/// <summary>
/// Several threads log a fixed number of events through the async dispatcher (bounded queue) into a file, then the
/// program shuts it down and checks the file. Usage: QuickStart [events-per-thread] [threads] [file].
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        int perThread = args.Length > 0 ? int.Parse(args[0]) : 250_000;
        int threads = args.Length > 1 ? int.Parse(args[1]) : 4;
        string path = Path.GetFullPath(args.Length > 2 ? args[2] : Path.Combine(Path.GetTempPath(), "lowlatencylog-quickstart.log"));

        var sink = new LineFileSink(path);
        var dispatcher = new AsyncDispatcher<LogLine>(
            "QuickStart", BoundedQueueFactory.Instance, capacity: 65536, sink, OverflowAction.Block, maxBatchSize: 1024);
        dispatcher.Start();

        var clock = Stopwatch.StartNew();
        var producers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            for (int i = 0; i < perThread; i++)
            {
                dispatcher.Enqueue(new LogLine(DateTime.UtcNow, t, i), discardable: false);
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
        bool drained = dispatcher.Close(5000);
        TimeSpan total = clock.Elapsed;

        long expected = (long)perThread * threads;
        long lines = File.ReadLines(path).LongCount();
        Console.WriteLine($"threads:          {threads} x {perThread:N0} events");
        Console.WriteLine($"logging threads:  {expected / logging.TotalSeconds:N0} events/s (time spent in Enqueue calls)");
        Console.WriteLine($"end to end:       {expected / total.TotalSeconds:N0} events/s (until the file was closed)");
        Console.WriteLine($"file:             {path}");
        Console.WriteLine($"lines in file:    {lines:N0} of {expected:N0}");
        Console.WriteLine($"discarded:        {dispatcher.DiscardedCount:N0}");
        Console.WriteLine($"errors:           {sink.Errors}");
        bool ok = drained && lines == expected && sink.Errors == 0;
        Console.WriteLine(ok ? "OK" : "FAILED");
        return ok ? 0 : 1;
    }

    /// <summary>What a producer captures: a value copied into the queue slot, no allocation.</summary>
    private readonly struct LogLine
    {
        public LogLine(DateTime time, int thread, int sequence)
        {
            Time = time;
            Thread = thread;
            Sequence = sequence;
        }

        public DateTime Time { get; }

        public int Thread { get; }

        public int Sequence { get; }
    }

    /// <summary>Formats on the worker thread and writes through one large buffer, flushed at the end of each batch.</summary>
    private sealed class LineFileSink : IBatchSink<LogLine>
    {
        private readonly StreamWriter _writer;

        public LineFileSink(string path)
        {
            _writer = new StreamWriter(new FileStream(path, FileMode.Create, FileAccess.Write, FileShare.Read, 1 << 16), new UTF8Encoding(false), 1 << 16);
        }

        public int Errors { get; private set; }

        public void Deliver(LogLine[] items, int count)
        {
            for (int i = 0; i < count; i++)
            {
                ref LogLine line = ref items[i];
                _writer.Write(line.Time.ToString("yyyy-MM-dd HH:mm:ss,fff"));
                _writer.Write(" [producer-");
                _writer.Write(line.Thread);
                _writer.Write("] INFO  QuickStart - event ");
                _writer.Write(line.Sequence);
                _writer.Write('\n');
            }
        }

        public bool Flush(int timeoutMilliseconds)
        {
            _writer.Flush();
            return true;
        }

        public void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded) =>
            _writer.Write($"WARN: {discardedSinceLastReport} events were discarded\n");

        public void Close() => _writer.Dispose();

        public void ReportError(string message, Exception? exception)
        {
            Errors++;
            Console.Error.WriteLine("error: " + message + " " + exception);
        }
    }
}
