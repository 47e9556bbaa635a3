using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Security;
using System.Threading;
using System.Xml;
using log4net;
using log4net.Config;
using log4net.Repository;
using LowLatencyLog.Appender;

namespace LowLatencyLog.ShippingTest;

/// <summary>
/// The caller's latency through an async appender (--appender, default BoundedQueueAsyncAppender) into a file, without and then with log4net's
/// RemoteSyslogAppender (UDP) as a second child, in one process: percentiles of the time spent in each log call.
/// The file behind each must hold every event; what the syslog receiver got is counted by <c>check</c>.
/// </summary>
public static class LatencyRun
{
    public static int Run(Options options)
    {
        string dir = Path.GetFullPath(options.Get("dir"));
        int port = options.Int("syslog-port", 0);
        int run = options.Int("run", 1);
        double rate = options.Double("rate", 10_000);
        double seconds = options.Double("seconds", 5);
        string appender = options.Get("appender", "BoundedQueueAsyncAppender");
        Directory.CreateDirectory(dir);
        string config = $@"<log4net>
  <appender name=""plain"" type=""LowLatencyLog.Appender.{appender}, LowLatencyLog"">
    <appender-ref ref=""plainFile"" />
  </appender>
  <appender name=""network"" type=""LowLatencyLog.Appender.{appender}, LowLatencyLog"">
    <appender-ref ref=""networkFile"" />
    <appender-ref ref=""syslog"" />
  </appender>
  <appender name=""plainFile"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
    <file value=""{SecurityElement.Escape(Path.Combine(dir, "plain.log"))}"" />
    <appendToFile value=""false"" />
    <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
  </appender>
  <appender name=""networkFile"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
    <file value=""{SecurityElement.Escape(Path.Combine(dir, "network.log"))}"" />
    <appendToFile value=""false"" />
    <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
  </appender>
  <appender name=""syslog"" type=""log4net.Appender.RemoteSyslogAppender"">
    <remoteAddress value=""127.0.0.1"" />
    <remotePort value=""{port}"" />
    <identity value=""app"" />
    <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message"" /></layout>
  </appender>
  <logger name=""plain"" additivity=""false""><level value=""ALL"" /><appender-ref ref=""plain"" /></logger>
  <logger name=""network"" additivity=""false""><level value=""ALL"" /><appender-ref ref=""network"" /></logger>
</log4net>";
        ILoggerRepository repository = LogManager.CreateRepository("latency-" + Guid.NewGuid().ToString("N"));
        var xml = new XmlDocument();
        xml.LoadXml(config);
        XmlConfigurator.Configure(repository, xml.DocumentElement!);
        long count = (long)(rate * seconds);

        // Run numbers: run for the file-only case, run + 1 for the case with the network child.
        long[] plain = Measure(LogManager.GetLogger(repository.Name, "plain"), run, count, rate);
        long[] network = Measure(LogManager.GetLogger(repository.Name, "network"), run + 1, count, rate);
        long discarded = repository.GetAppenders().OfType<AsyncForwardingAppender>().Sum(a => a.DiscardedCount);
        repository.Shutdown();

        Console.WriteLine("| child | events | p50 µs | p99 µs | p99.9 µs | max µs |");
        Console.WriteLine("|---|---|---|---|---|---|");
        Print("file only", plain);
        Print("file + RemoteSyslogAppender", network);
        long plainLines = File.ReadLines(Path.Combine(dir, "plain.log")).LongCount();
        long networkLines = File.ReadLines(Path.Combine(dir, "network.log")).LongCount();
        Console.WriteLine($"file lines: {plainLines} and {networkLines} of {count} each; discarded {discarded}");
        Console.WriteLine($"EXPECT {run + 1}:1:{count}");
        return plainLines == count && networkLines == count && discarded == 0 ? 0 : 1;
    }

    private static long[] Measure(ILog log, int run, long count, double rate)
    {
        var samples = new long[count];
        var clock = Stopwatch.StartNew();
        for (long i = 0; i < count; i++)
        {
            while (clock.Elapsed.TotalSeconds < i / rate)
            {
                Thread.SpinWait(20);
            }

            string text = Events.Text(run, 0, i);
            long start = Stopwatch.GetTimestamp();
            log.Info(text);
            samples[i] = Stopwatch.GetTimestamp() - start;
        }

        Array.Sort(samples);
        return samples;
    }

    private static void Print(string name, long[] sorted)
    {
        double Us(double q) => sorted[Math.Min(sorted.Length - 1, (int)(q * sorted.Length))] * 1e6 / Stopwatch.Frequency;
        Console.WriteLine($"| {name} | {sorted.Length} | {Us(0.5):F1} | {Us(0.99):F1} | {Us(0.999):F1} | {sorted[^1] * 1e6 / Stopwatch.Frequency:F1} |");
    }
}
