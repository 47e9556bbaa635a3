using System;
using System.Linq;
using log4net;
using log4net.Core;
using LowLatencyLog.Appender;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Forwarding;
using LowLatencyLog.Tests.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Configuration;

/// <summary>
/// Async 11 and 12 (docs/behaviours.md) and the threshold/filter settings: bad values get a clear internal error and the default,
/// never a dropped appender; events appended before activation are kept; closing a never-activated appender is quiet.
/// </summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class AsyncAppenderSettingsTests : AsyncAppenderFixture
{
    public AsyncAppenderSettingsTests(AsyncAppenderKind kind)
        : base(kind)
    {
    }

    [TestCase("bufferSize", "abc", "whole number")]
    [TestCase("bufferSize", "0", "whole number")]
    [TestCase("bufferSize", "-5", "whole number")]
    [TestCase("bufferSize", "", "whole number")]
    [TestCase("overflow", "Sometimes", "Block, Discard")]
    [TestCase("overflow", "", "Block, Discard")]
    [TestCase("overflow", "1", "Block, Discard")]
    [TestCase("discardThreshold", "LOUD", "Warn")]
    [TestCase("discardThreshold", "", "Info")]
    [TestCase("fix", "ThreadName, Nope", "Auto")]
    [TestCase("fix", "", "Auto")]
    [TestCase("shutdownTimeout", "soon", "whole number")]
    [TestCase("shutdownTimeout", "-1", "whole number")]
    [TestCase("waitStrategy", "Spinning", "one of Adaptive, Blocking, Sleeping, Yielding, BusySpin")]
    [TestCase("waitStrategy", "", "one of Adaptive, Blocking, Sleeping, Yielding, BusySpin")]
    public void BadValue_ClearInternalErrorAndTheAppenderStillLogsWithTheDefault(string setting, string value, string accepted)
    {
        var harness = Configure($@"<{setting} value=""{value}"" />");

        string[] errors = harness.InternalErrors;
        Assert.That(errors, Has.Length.EqualTo(1), string.Join("\n", errors));
        Assert.That(errors[0], Does.Contain($"'{setting}'").And.Contain($"\"{value}\"").And.Contain("Accepted").And.Contain(accepted).And.Contain("default"));
        Assert.That(errors[0], Does.Contain("[async]"));

        AsyncForwardingAppender async = Async(harness);
        harness.Logger().Info("still logging");
        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(Child(harness).Lines, Is.EqualTo(new[] { "still logging" }));
        if (setting == "bufferSize")
        {
            Assert.That(async.Settings!.BufferSize, Is.EqualTo(8192));
        }

        if (setting == "waitStrategy")
        {
            Assert.That(async.Lifecycle.Running!.Wait, Is.InstanceOf<AdaptiveWaitStrategy>());
        }
    }

    [TestCase("Adaptive", typeof(AdaptiveWaitStrategy))]
    [TestCase("blocking", typeof(BlockingWaitStrategy))]
    [TestCase("Sleeping", typeof(SleepingWaitStrategy))]
    [TestCase("Yielding", typeof(YieldingWaitStrategy))]
    [TestCase("BusySpin", typeof(BusySpinWaitStrategy))]
    public void WaitStrategy_EveryValue_TakesEffectWithoutError(string value, System.Type expected)
    {
        var harness = Configure($@"<waitStrategy value=""{value}"" /><bufferSize value=""8"" />");
        for (int i = 0; i < 100; i++)
        {
            harness.Logger().Info("e" + i);
        }

        AsyncForwardingAppender async = Async(harness);
        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(harness.InternalErrors, Is.Empty);
        Assert.That(Child(harness).Count, Is.EqualTo(100));
        Assert.That(async.Lifecycle.Running!.Wait, Is.InstanceOf(expected));
    }

    [TestCase("Block")]
    [TestCase("discard")]
    [TestCase("Grow")]
    public void ValidOverflow_NoError(string overflow)
    {
        if (overflow == "Grow" && !Kind.SupportsGrow)
        {
            Assert.Ignore($"{Kind} does not grow; its configuration tests check that Grow is an error");
        }

        var harness = Configure($@"<overflow value=""{overflow}"" /><bufferSize value=""8"" />");
        for (int i = 0; i < 100; i++)
        {
            harness.Logger().Warn("e" + i);
        }

        Assert.That(Async(harness).Flush(10_000), Is.True);
        Assert.That(harness.InternalErrors, Is.Empty);
        Assert.That(Child(harness).Count, Is.EqualTo(100));
    }

    [Test]
    public void MissingAppenderRef_IsAnErrorAtActivation()
    {
        var harness = Configure(refs: "");

        Assert.That(harness.InternalErrors.Where(e => e.Contains("[async]") && e.Contains("appender-ref")), Is.Not.Empty, string.Join("\n", harness.InternalErrors));
        Assert.DoesNotThrow(() => harness.Logger().Info("nowhere to go"));
    }

    [Test]
    public void ThresholdAndFilters_AreHonouredBeforeAnythingIsQueued()
    {
        var harness = Configure(@"<threshold value=""WARN"" />
            <filter type=""log4net.Filter.StringMatchFilter""><stringToMatch value=""secret"" /><acceptOnMatch value=""false"" /></filter>");
        ILog log = harness.Logger();
        log.Info("info");
        log.Warn("warn");
        log.Error("secret error");
        log.Error("error");

        Assert.That(Async(harness).Flush(10_000), Is.True);
        Assert.That(Child(harness).Lines, Is.EqualTo(new[] { "warn", "error" }));
        Assert.That(Async(harness).DeliveredCount, Is.EqualTo(2));
    }

    // Async 12, as log4net 3.5 does it: on a reconfiguration, a child's activation logs before the async appender
    // is activated (children are activated first).
    [Test]
    public void Reconfiguration_EventsAppendedBeforeActivationAreDelivered()
    {
        var harness = Configure();
        harness.Configure(Xml(appenders: RecordingChild() +
            @"<appender name=""activator"" type=""LowLatencyLog.Tests.Support.ActivationLoggingAppender, LowLatencyLog.Tests"">
                <repositoryName value=""{repo}"" />
              </appender>",
            refs: @"<appender-ref ref=""activator"" /><appender-ref ref=""child"" />"));

        Assert.That(harness.Appender<ActivationLoggingAppender>("activator").Logged, Is.True);
        Assert.That(Async(harness).Flush(10_000), Is.True);
        Assert.That(Child(harness).Lines, Is.EqualTo(new[] { ActivationLoggingAppender.Message }));
    }

    [Test]
    public void DoAppendBeforeActivateOptions_EventsKeptAndDeliveredFirstInOrder()
    {
        AsyncForwardingAppender async = Kind.Create();
        async.Name = "early";
        var child = new RecordingAppender { Name = "child" };
        child.ActivateOptions();
        for (int i = 0; i < 10; i++)
        {
            async.DoAppend(new LoggingEvent(GetType(), null, "early", Level.Info, "before " + i, null));
        }

        async.AddAppender(child);
        async.ActivateOptions();
        async.DoAppend(new LoggingEvent(GetType(), null, "early", Level.Info, "after", null));
        async.Close();

        Assert.That(child.Lines, Is.EqualTo(Enumerable.Range(0, 10).Select(i => "before " + i).Concat(new[] { "after" })));
    }

    // A level the configuration defines works for discardThreshold as it does for threshold: AUDIT (45000, between
    // INFO and WARN) events are dropped when the buffer is full, where the default (INFO) would make them wait.
    [Test]
    public void DiscardThreshold_ALevelTheConfigurationDefines_IsAccepted()
    {
        var harness = Configure(
            @"<bufferSize value=""16"" /><overflow value=""Discard"" /><discardThreshold value=""AUDIT"" />",
            @"<level><name value=""AUDIT"" /><value value=""45000"" /></level>" + RecordingChild());
        RecordingAppender child = Child(harness);
        AsyncForwardingAppender async = Async(harness);
        Level audit = harness.Repository.LevelMap["AUDIT"]!;
        ILog log = harness.Logger();
        child.Hold();
        try
        {
            log.Info("first");
            Assert.That(child.Entered.Wait(Wait), Is.True);
            var burst = System.Threading.Tasks.Task.Run(() =>
            {
                for (int i = 0; i < 100; i++)
                {
                    log.Logger.Log(GetType(), audit, "audit " + i, null);
                }
            });

            Assert.That(burst.Wait(TimeSpan.FromSeconds(30)), Is.True, "AUDIT events are discardable, so the burst never waits");
            Assert.That(async.DiscardedCount, Is.GreaterThan(0));
            Assert.That(harness.InternalErrors, Is.Empty);
        }
        finally
        {
            child.Open();
        }
    }

    // Async 3 and 12: Close arrives while ActivateOptions is still moving the early events into a small buffer.
    [Test]
    public void CloseWhileActivationMovesTheEarlyEvents_EveryEarlyEventIsDelivered()
    {
        const int early = 200;
        AsyncForwardingAppender async = Kind.Create();
        async.Name = "early";
        async.BufferSize = "8";
        var child = new RecordingAppender { Name = "child", OnEvent = _ => System.Threading.Thread.Sleep(2) };
        child.ActivateOptions();
        async.AddAppender(child);
        for (int i = 0; i < early; i++)
        {
            async.DoAppend(new LoggingEvent(GetType(), null, "early", Level.Info, "before " + i, null));
        }

        var activation = System.Threading.Tasks.Task.Run(async.ActivateOptions);
        Assert.That(child.WaitForCount(1), Is.True);
        async.Close();
        Assert.That(activation.Wait(TimeSpan.FromSeconds(30)), Is.True);

        Assert.That(child.Lines, Is.EqualTo(Enumerable.Range(0, early).Select(i => "before " + i)));
        Assert.That(async.DeliveredCount, Is.EqualTo(early));
        Assert.That(async.UndeliveredCount, Is.Zero);
    }

    // Async 5 and 12: before activation an appender keeps at most a default buffer's worth of events; what it
    // drops beyond that is counted and reported like any discard.
    [Test]
    public void MoreEarlyEventsThanItKeeps_TheDroppedOnesAreReportedAsDiscards()
    {
        const int extra = 100;
        AsyncForwardingAppender async = Kind.Create();
        async.Name = "early";
        var child = new RecordingAppender { Name = "child" };
        child.ActivateOptions();
        async.AddAppender(child);
        for (int i = 0; i < EarlyEvents.Limit + extra; i++)
        {
            async.DoAppend(new LoggingEvent(GetType(), null, "early", Level.Info, "before " + i, null));
        }

        async.ActivateOptions();
        Assert.That(async.Flush(30_000), Is.True);
        async.Close();

        Assert.That(async.DiscardedCount, Is.EqualTo(extra));
        string[] reports = child.Lines.Where(l => l.Contains("were discarded")).ToArray();
        Assert.That(reports, Has.Length.EqualTo(1));
        Assert.That(reports[0], Does.StartWith(extra + " event(s) were discarded"));
        Assert.That(child.Lines.Count(l => l.StartsWith("before ")), Is.EqualTo(EarlyEvents.Limit));
    }

    // Async 3: what a never-activated appender held is counted when Close drops it, and Flush no longer says
    // everything was delivered.
    [Test]
    public void Close_NeverActivatedWithEarlyEvents_CountsThemAsUndelivered()
    {
        AsyncForwardingAppender async = Kind.Create();
        var child = new RecordingAppender { Name = "child" };
        child.ActivateOptions();
        async.AddAppender(child);
        for (int i = 0; i < 10; i++)
        {
            async.DoAppend(new LoggingEvent(GetType(), null, "early", Level.Info, "before " + i, null));
        }

        async.Close();

        Assert.That(async.UndeliveredCount, Is.EqualTo(10));
        Assert.That(async.Flush(100), Is.False);
        Assert.That(child.Lines, Is.Empty);
    }

    [Test]
    public void Close_NeverActivated_ReturnsAtOnceWithoutError()
    {
        AsyncForwardingAppender async = Kind.Create();
        var child = new PlainAppender();
        async.AddAppender(child);

        var close = System.Threading.Tasks.Task.Run(() =>
        {
            async.Close();
            async.Close();
        });
        Assert.That(close.Wait(TimeSpan.FromSeconds(60)), Is.True, "Close returned: no worker to wait for");
        Assert.That(close.IsFaulted, Is.False);
        Assert.That(child.Closed, Is.EqualTo(1));
        Assert.DoesNotThrow(() => async.DoAppend(new LoggingEvent(GetType(), null, "x", Level.Info, "after close", null)));
        Assert.DoesNotThrow(async.ActivateOptions);
        Assert.That(child.Messages, Is.Empty);
    }

    [Test]
    public void ActivationWithErrors_ThenClose_DoesNotThrow()
    {
        AsyncForwardingAppender async = Kind.Create();
        async.BufferSize = "lots";
        async.Overflow = "maybe";
        Assert.DoesNotThrow(async.ActivateOptions); // no children, two bad settings
        Assert.DoesNotThrow(async.Close);
    }
}
