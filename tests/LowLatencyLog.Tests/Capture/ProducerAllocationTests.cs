using System;
using System.Collections.Generic;
using System.Threading;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// The producer path allocates nothing beyond what log4net itself allocates for an event, for
/// <c>fix=Message, ThreadName, Exception</c> and a string message: measured on one named thread, async appender versus
/// a synchronous <see cref="NullAppender"/> in the same test.
/// </summary>
public sealed class ProducerAllocationTests
{
    private const int Events = 20_000;

    [TestCaseSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
    public void ProducerAllocatesNothingBeyondLog4netsOwnEvent(AsyncAppenderKind kind)
    {
        using var sync = new Log4netHarness(@"<log4net>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <root><level value=""ALL"" /><appender-ref ref=""null"" /></root>
          </log4net>");
        using var async = new Log4netHarness($@"<log4net>
            <appender name=""async"" type=""{kind.TypeAttribute}"">
              <fix value=""Message, ThreadName, Exception"" />
              <bufferSize value=""131072"" /> <!-- every measured event fits: the producer never waits for room -->
              <appender-ref ref=""null"" />
            </appender>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
          </log4net>");

        long syncBytes = MeasureOnNamedThread(sync.Logger());
        long asyncBytes = MeasureOnNamedThread(async.Logger());
        Assert.That(async.Appender<AsyncForwardingAppender>("async").Flush(10_000), Is.True);

        TestContext.Out.WriteLine($"{kind}: log4net alone {syncBytes / (double)Events:F1} B/event, through the async appender {asyncBytes / (double)Events:F1} B/event");
        Assert.That(syncBytes, Is.GreaterThan(0), "the measurement sees log4net's own event");
        Assert.That(asyncBytes - syncBytes, Is.LessThan(Events / 10), "less than a tenth of a byte per event beyond log4net's own");
    }

    private static long MeasureOnNamedThread(ILog log)
    {
        long measured = -1;
        var failures = new List<Exception>();
        var thread = new Thread(() =>
        {
            try
            {
                const string message = "a constant message";
                for (int i = 0; i < Events; i++)
                {
                    log.Info(message); // warm up: JIT, caches
                }

                measured = Allocations.LeastOfThreeRounds(() =>
                {
                    for (int i = 0; i < Events; i++)
                    {
                        log.Info(message);
                    }
                });
            }
            catch (Exception e)
            {
                failures.Add(e);
            }
        }) { Name = "allocation-producer", IsBackground = true };
        thread.Start();
        Assert.That(thread.Join(TimeSpan.FromSeconds(30)), Is.True);
        Assert.That(failures, Is.Empty);
        return measured;
    }
}
