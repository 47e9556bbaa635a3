using System;
using System.Collections.Generic;
using System.Threading;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// The builder a thread formats <c>*Format</c> messages into is not kept at the size of the longest message it ever
/// held: after a 4-million-character message, a small call allocates about what it did before (a new small builder at
/// most), not a clear of the large one.
/// </summary>
public sealed class FormattingBuilderTests
{
    public static IEnumerable<TestCaseData> Kinds()
    {
        foreach (AsyncAppenderKind kind in AsyncAppenderKind.All)
        {
            yield return new TestCaseData(kind).SetArgDisplayNames(kind.TypeName);
        }
    }

    [TestCaseSource(nameof(Kinds))]
    public void SmallCallAfterAHugeOne_AllocatesUnderAKilobyteMore(AsyncAppenderKind kind)
    {
        using var harness = new Log4netHarness($@"<log4net>
            <appender name=""async"" type=""{kind.TypeAttribute}"">
              <fix value=""Message, ThreadName, Exception"" />
              <appender-ref ref=""null"" />
            </appender>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
          </log4net>");
        ILog log = harness.Logger();
        string huge = new string('x', 4_000_000);
        long steady = long.MaxValue, afterHuge = long.MaxValue;

        // One fresh thread per round (the least of three: a one-off allocation of the runtime's shows in one round
        // only), since a kept builder costs its clear once, then stays large.
        for (int round = 0; round < 3; round++)
        {
            var thread = new Thread(() =>
            {
                for (int i = 0; i < 100; i++)
                {
                    log.InfoFormat("order {0} filled", i); // every slot used once, the thread's builder made
                }

                long before = GC.GetAllocatedBytesForCurrentThread();
                log.InfoFormat("order {0} filled", 100);
                steady = Math.Min(steady, GC.GetAllocatedBytesForCurrentThread() - before);

                log.InfoFormat("huge {0}", huge);
                before = GC.GetAllocatedBytesForCurrentThread();
                log.InfoFormat("order {0} filled", 101);
                afterHuge = Math.Min(afterHuge, GC.GetAllocatedBytesForCurrentThread() - before);
            }) { Name = "producer" };
            thread.Start();
            thread.Join();
        }

        Assert.That(harness.Appender<AsyncForwardingAppender>("async").Flush(30_000), Is.True);

        TestContext.Out.WriteLine($"{kind}: a small call {steady} B, the same call after a huge one {afterHuge} B");
        Assert.That(steady, Is.GreaterThan(0), "the measurement sees log4net's own event");
        Assert.That(afterHuge, Is.LessThan(1024), "bytes of the small call after the huge one");
        Assert.That(afterHuge - steady, Is.LessThan(1024));
    }
}
