using System.IO;
using System.Linq;
using System.Threading;
using log4net;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Capture;
using LowLatencyLog.Forwarding;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Appender;

/// <summary>docs/behaviours.md, "NullAppender": counts single and bulk deliveries, honours threshold and filters, renders into a
/// discarded buffer only when it has a layout.</summary>
public sealed class NullAppenderTests
{
    [Test]
    public void CountsSingleAndBulk_HonoursThresholdAndFilters()
    {
        using var harness = new Log4netHarness(@"<log4net>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"">
              <threshold value=""INFO"" />
              <filter type=""log4net.Filter.StringMatchFilter""><stringToMatch value=""skip"" /><acceptOnMatch value=""false"" /></filter>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""null"" /></root>
          </log4net>");
        var appender = harness.Appender<NullAppender>("null");
        ILog log = harness.Logger();

        log.Info("one");
        log.Debug("below threshold");
        log.Warn("skip me");
        Assert.That(appender.Count, Is.EqualTo(1));

        appender.DoAppend(new[]
        {
            new LoggingEvent(GetType(), harness.Repository, "x", Level.Info, "a", null),
            new LoggingEvent(GetType(), harness.Repository, "x", Level.Error, "b", null),
            new LoggingEvent(GetType(), harness.Repository, "x", Level.Debug, "c", null),
        });
        Assert.That(appender.Count, Is.EqualTo(3));
    }

    [Test]
    public void CapturedBatches_CountedWithTheThreshold_ButLeftToRebuiltEventsWithALayoutOrAFilter()
    {
        CapturedEvent[] batch = new[] { Level.Debug, Level.Info, Level.Error }
            .Select(level => CapturedEvent.Capture(new LoggingEvent(GetType(), null, "x", level, "m", null), CapturedEvent.SlotFlags))
            .ToArray();
        var plain = new NullAppender { Threshold = Level.Info };
        plain.ActivateOptions();
        var withLayout = new NullAppender { Layout = new CountingLayout() };
        withLayout.ActivateOptions();
        var withFilter = new NullAppender();
        withFilter.AddFilter(new log4net.Filter.DenyAllFilter());
        withFilter.ActivateOptions();
        var errors = new RecordingErrorHandler();
        var closed = new NullAppender { Name = "closed", ErrorHandler = errors };
        closed.ActivateOptions();
        closed.Close();

        Assert.That(((ICapturedEventAppender)plain).Target!.TryAppend(batch, 3), Is.True);
        Assert.That(plain.Count, Is.EqualTo(2));
        Assert.That(((ICapturedEventAppender)withLayout).Target!.TryAppend(batch, 3), Is.False);
        Assert.That(((ICapturedEventAppender)withFilter).Target!.TryAppend(batch, 3), Is.False);
        Assert.That(withLayout.Count + withFilter.Count, Is.Zero);
        Assert.That(((ICapturedEventAppender)closed).Target!.TryAppend(batch, 3), Is.True);
        Assert.That(closed.Count, Is.Zero);
        Assert.That(errors.Errors, Is.EqualTo(new[] { "Attempted to append to closed appender named [closed]." }));
    }

    [Test]
    public void RendersOnlyWithALayout()
    {
        var layout = new CountingLayout();
        var withLayout = new NullAppender { Layout = layout };
        withLayout.ActivateOptions();
        var without = new NullAppender();
        without.ActivateOptions();
        var e = new LoggingEvent(GetType(), null, "x", Level.Info, "rendered", null);

        withLayout.DoAppend(e);
        withLayout.DoAppend(new[] { e, e });
        without.DoAppend(e);

        Assert.That(layout.Formatted, Is.EqualTo(3));
        Assert.That(withLayout.Count, Is.EqualTo(3));
        Assert.That(without.Count, Is.EqualTo(1));
    }

    [Test]
    public void AsAChildOfAnAsyncAppender_CountsEveryEvent()
    {
        using var harness = new Log4netHarness(@"<log4net>
            <appender name=""async"" type=""LowLatencyLog.Appender.BoundedQueueAsyncAppender, LowLatencyLog""><appender-ref ref=""null"" /></appender>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
          </log4net>");
        var appender = harness.Appender<NullAppender>("null");
        for (int i = 0; i < 1000; i++)
        {
            harness.Logger().Info("e");
        }

        Assert.That(harness.Appender<AsyncForwardingAppender>("async").Flush(10_000), Is.True);
        Assert.That(appender.Count, Is.EqualTo(1000));
    }

    private sealed class CountingLayout : LayoutSkeleton
    {
        private int _formatted;

        public int Formatted => Volatile.Read(ref _formatted);

        public override void ActivateOptions()
        {
        }

        public override void Format(TextWriter writer, LoggingEvent loggingEvent)
        {
            Interlocked.Increment(ref _formatted);
            writer.Write(loggingEvent.RenderedMessage);
        }
    }
}
