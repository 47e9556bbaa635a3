using System;
using System.Collections.Generic;
using System.Threading;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// Async 13: the producer path allocates nothing beyond what log4net itself allocates for the call (the event, and
/// for a <c>*Format</c> call the message object, its argument array and boxes), for
/// <c>fix=Message, ThreadName, Exception</c> and the message kinds users write: measured on one named thread, async
/// appender versus a synchronous <see cref="NullAppender"/> in the same test, once every slot has been used (a slot's
/// text storage is allocated on its first use).
/// </summary>
public sealed class ProducerAllocationTests
{
    private const int Events = 20_000;

    public enum MessageKind
    {
        Constant,
        FormatInt,
        FormatString,
        FormatDate,
        FormatThree,
    }

    public static IEnumerable<TestCaseData> Cases()
    {
        foreach (AsyncAppenderKind kind in AsyncAppenderKind.All)
        {
            foreach (MessageKind message in (MessageKind[])Enum.GetValues(typeof(MessageKind)))
            {
                yield return new TestCaseData(kind, message);
            }
        }
    }

    [TestCaseSource(nameof(Cases))]
    public void ProducerAllocatesNothingBeyondLog4netsOwnEvent(AsyncAppenderKind kind, MessageKind message)
    {
        using var sync = new Log4netHarness(@"<log4net>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <root><level value=""ALL"" /><appender-ref ref=""null"" /></root>
          </log4net>");
        using var async = new Log4netHarness($@"<log4net>
            <appender name=""async"" type=""{kind.TypeAttribute}"">
              <fix value=""Message, ThreadName, Exception"" />
              <bufferSize value=""16384"" />
              <appender-ref ref=""null"" />
            </appender>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
          </log4net>");

        long syncBytes = MeasureOnNamedThread(sync.Logger(), message);
        long asyncBytes = MeasureOnNamedThread(async.Logger(), message);
        Assert.That(async.Appender<AsyncForwardingAppender>("async").Flush(10_000), Is.True);

        TestContext.Out.WriteLine($"{kind}, {message}: log4net alone {syncBytes / (double)Events:F1} B/event, through the async appender {asyncBytes / (double)Events:F1} B/event");
        Assert.That(syncBytes, Is.GreaterThan(0), "the measurement sees log4net's own event");
        Assert.That(asyncBytes - syncBytes, Is.LessThan(Events / 10), "less than a tenth of a byte per event beyond log4net's own");
    }

    private static readonly DateTime Date = new DateTime(2026, 11, 26, 16, 19, 53, DateTimeKind.Utc);

    private static void Log(ILog log, MessageKind kind, int i)
    {
        switch (kind)
        {
            case MessageKind.Constant:
                log.Info("a constant message");
                break;
            case MessageKind.FormatInt:
                log.InfoFormat("order {0} filled", i);
                break;
            case MessageKind.FormatString:
                log.InfoFormat("user {0} signed in", "alice");
                break;
            case MessageKind.FormatDate:
                log.InfoFormat("settled on {0:yyyy-MM-dd HH:mm:ss}", Date);
                break;
            default:
                log.InfoFormat("order {0} filled at {1} for {2}", i, 12.5m, "alice");
                break;
        }
    }

    private static long MeasureOnNamedThread(ILog log, MessageKind kind)
    {
        long measured = -1;
        var failures = new List<Exception>();
        var thread = new Thread(() =>
        {
            try
            {
                for (int i = 0; i < 8 * Events; i++)
                {
                    Log(log, kind, i); // warm up: JIT, caches, and every slot's text storage (up to 2 x 16,384 slots)
                }

                measured = Allocations.LeastOfThreeRounds(() =>
                {
                    for (int i = 0; i < Events; i++)
                    {
                        Log(log, kind, i);
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
