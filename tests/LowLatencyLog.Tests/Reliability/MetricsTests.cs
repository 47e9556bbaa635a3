using System.Collections.Generic;
using System.Diagnostics.Metrics;
using System.Linq;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Reliability;

/// <summary>The <c>LowLatencyLog</c> meter reports each async appender's counters, tagged with its name.</summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class MetricsTests : AsyncAppenderFixture
{
    public MetricsTests(AsyncAppenderKind kind)
        : base(kind)
    {
    }

    [Test]
    public void Meter_ReportsAcceptedDeliveredDiscardedAndDepth_TaggedWithTheAppenderName()
    {
        Log4netHarness harness = Configure(@"<bufferSize value=""8"" /><overflow value=""Discard"" />");
        AsyncForwardingAppender async = Async(harness);
        RecordingAppender child = Child(harness);
        child.Hold();
        var log = harness.Logger();
        log.Info("first");
        Assert.That(child.Entered.Wait(Wait), Is.True, "the worker is inside the held child");
        for (int i = 0; i < 100; i++)
        {
            log.Info("burst " + i);
        }

        Dictionary<string, long> held = Collect("async");
        Assert.That(held["lowlatencylog.queue.depth"], Is.GreaterThan(0), "events wait behind the held child");
        Assert.That(held["lowlatencylog.events.discarded"], Is.EqualTo(async.DiscardedCount).And.GreaterThan(0));

        child.Open();
        Assert.That(async.Flush(30_000), Is.True);
        Dictionary<string, long> done = Collect("async");
        Assert.That(done["lowlatencylog.events.accepted"], Is.EqualTo(101 - async.DiscardedCount));
        Assert.That(done["lowlatencylog.events.delivered"], Is.EqualTo(done["lowlatencylog.events.accepted"]));
        Assert.That(done["lowlatencylog.events.accepted"] + done["lowlatencylog.events.discarded"], Is.EqualTo(101));
        Assert.That(done["lowlatencylog.queue.depth"], Is.Zero);

        harness.Shutdown();
        Assert.That(Collect("async"), Is.Empty, "a closed appender is no longer reported");
    }

    [Test]
    public void Meter_ReportsReentrantCalls()
    {
        using var harness = new Log4netHarness($@"<log4net>
            <appender name=""async"" type=""{Kind.TypeAttribute}"">
              <appender-ref ref=""null"" />
            </appender>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
          </log4net>");
        log4net.ILog log = harness.Logger();
        log.InfoFormat("outer {0}", new LogsWhenFormatted(log));
        log.InfoFormat("outer {0}", new LogsWhenFormatted(log));

        var async = harness.Appender<LowLatencyLog.Appender.AsyncForwardingAppender>("async");
        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(async.ReentrantCount, Is.EqualTo(2));
        Assert.That(Collect("async")["lowlatencylog.events.reentrant"], Is.EqualTo(2));
        Assert.That(async.DeliveredCount, Is.EqualTo(2), "the outer calls only");
    }

    /// <summary>
    /// A call whose event cannot be queued (here its capture throws; a copy into the buffer that runs out of memory
    /// is the same) counts as discarded: what was sent = accepted + discarded, and accepted = delivered.
    /// </summary>
    [Test]
    public void ACallThatFailsToQueue_CountsAsDiscarded_TheCountersAddUp()
    {
        Log4netHarness harness = Configure(appenders: RecordingChild(pattern: "%message %property{failing}"));
        AsyncForwardingAppender async = Async(harness);
        var errors = new RecordingErrorHandler();
        async.ErrorHandler = errors;
        var log = harness.Logger();
        log.Info("before");
        log4net.ThreadContext.Properties["failing"] = new FailsToFix();
        try
        {
            log.Info("failing");
        }
        finally
        {
            log4net.ThreadContext.Properties.Remove("failing");
        }

        log.Info("after");
        Assert.That(async.Flush(30_000), Is.True);

        Assert.That(errors.Errors, Has.Some.Contains("failed to queue an event"));
        Assert.That(async.DiscardedCount, Is.EqualTo(1), "the failed call");
        Dictionary<string, long> done = Collect("async");
        Assert.That(done["lowlatencylog.events.accepted"], Is.EqualTo(2));
        Assert.That(done["lowlatencylog.events.delivered"], Is.EqualTo(done["lowlatencylog.events.accepted"]));
        Assert.That(done["lowlatencylog.events.accepted"] + done["lowlatencylog.events.discarded"], Is.EqualTo(3), "sent = accepted + discarded");
    }

    private sealed class FailsToFix : log4net.Core.IFixingRequired
    {
        public object GetFixedObject() => throw new System.InvalidOperationException("injected: the value cannot be fixed");
    }

    private sealed class LogsWhenFormatted
    {
        private readonly log4net.ILog _log;

        public LogsWhenFormatted(log4net.ILog log) => _log = log;

        public override string ToString()
        {
            _log.Info("nested");
            return "x";
        }
    }

    /// <summary>One collection of every LowLatencyLog instrument, for the appender named <paramref name="appender"/>.</summary>
    private static Dictionary<string, long> Collect(string appender)
    {
        var values = new Dictionary<string, long>();
        using var listener = new MeterListener
        {
            InstrumentPublished = (instrument, l) =>
            {
                if (instrument.Meter.Name == "LowLatencyLog")
                {
                    l.EnableMeasurementEvents(instrument);
                }
            },
        };
        listener.SetMeasurementEventCallback<long>((instrument, value, tags, _) =>
        {
            if (tags.ToArray().Any(t => t.Key == "appender" && (string?)t.Value == appender))
            {
                values[instrument.Name] = value;
            }
        });
        listener.Start();
        listener.RecordObservableInstruments();
        return values;
    }
}
