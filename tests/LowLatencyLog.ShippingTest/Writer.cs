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

/// <summary>Logs numbered events at a paced rate through an async appender into a rolling file.</summary>
public static class Writer
{
    public static int Run(Options options)
    {
        string file = Path.GetFullPath(options.Get("file"));
        int run = options.Int("run", 1);
        int producers = options.Int("producers", 2);
        double rate = options.Double("rate", 20_000);
        double seconds = options.Double("seconds", 10);
        long perProducer = (long)(rate * seconds / producers);
        double speed = options.Double("clock-speed", 0);
        if (speed > 0)
        {
            MovingClock.Epoch = MovingClock.FromUnixSeconds(options.Get("clock-epoch"));
            MovingClock.Speed = speed;
            MovingClock.Hold = options.Has("clock-hold");
        }

        string fileType = options.Get("appender", "ours") == "log4net"
            ? "log4net.Appender.RollingFileAppender"
            : "LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog";
        string strategy = speed > 0
            ? @"<dateTimeStrategy type=""LowLatencyLog.ShippingTest.MovingClock, LowLatencyLog.ShippingTest"" />"
            : "";
        string config = $@"<log4net>
  <appender name=""async"" type=""LowLatencyLog.Appender.BoundedQueueAsyncAppender, LowLatencyLog"">
    <overflow value=""Block"" />
    <shutdownTimeout value=""60000"" />
    <appender-ref ref=""file"" />
  </appender>
  <appender name=""file"" type=""{fileType}"">
    <file value=""{SecurityElement.Escape(file)}"" />
    <appendToFile value=""true"" />
    <rollingStyle value=""{options.Get("style", "Composite")}"" />
    <maximumFileSize value=""{options.Get("max-size", "1MB")}"" />
    <maxSizeRollBackups value=""{options.Int("backups", 10)}"" />
    <staticLogFileName value=""true"" />
    <datePattern value="".yyyy-MM-dd-HH-mm"" />
    {strategy}
    <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
  </appender>
  <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
</log4net>";

        ILoggerRepository repository = LogManager.CreateRepository("shipping-" + Guid.NewGuid().ToString("N"));
        var xml = new XmlDocument();
        xml.LoadXml(config);
        XmlConfigurator.Configure(repository, xml.DocumentElement!);
        var async = repository.GetAppenders().OfType<AsyncForwardingAppender>().Single();
        ILog log = LogManager.GetLogger(repository.Name, "app");

        var clock = Stopwatch.StartNew();
        Thread[] threads = Enumerable.Range(0, producers).Select(p => new Thread(() =>
        {
            double perSecond = rate / producers;
            for (long i = 0; i < perProducer; i++)
            {
                if ((i & 63) == 0)
                {
                    // Paced: never ahead of the schedule, so the rate is sustained rather than a burst.
                    while (clock.Elapsed.TotalSeconds < i / perSecond)
                    {
                        Thread.Sleep(1);
                    }
                }

                log.Info(Events.Text(run, p, i));
            }
        }) { Name = "producer-" + p }).ToArray();
        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        double logging = clock.Elapsed.TotalSeconds;
        long discarded = async.DiscardedCount;
        repository.Shutdown();
        Console.WriteLine($"run {run}: {producers} x {perProducer:N0} events in {logging:F1} s, discarded {discarded}");
        Console.WriteLine($"EXPECT {run}:{producers}:{perProducer}");
        return discarded == 0 ? 0 : 1;
    }
}
