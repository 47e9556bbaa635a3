using System;
using System.Linq;
using System.Reflection;
using System.Threading;
using log4net.Core;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Appender;

/// <summary>
/// The Disruptor appender's own settings and configuration errors, configured from XML as users do: a bad value gets
/// one clear internal error (setting, value, accepted values, default) and the appender logs on with the default.
/// </summary>
public sealed class DisruptorAsyncAppenderSettingsTests : AsyncAppenderFixture
{
    public DisruptorAsyncAppenderSettingsTests()
        : base(AsyncAppenderKind.All.Single(k => k.TypeName == nameof(DisruptorAsyncAppender)))
    {
    }

    [TestCase("bufferSize", "1000", "power of two", "8192")]
    [TestCase("bufferSize", "3", "power of two", "8192")]
    [TestCase("overflow", "Grow", "one of Block, Discard", "Block")]
    [TestCase("producerType", "Many", "one of Multi, Single", "Multi")]
    [TestCase("producerType", "2", "one of Multi, Single", "Multi")]
    public void BadValue_ClearInternalError_AndTheDefaultIsUsed(string setting, string value, string accepted, string defaultValue)
    {
        var harness = Configure($@"<{setting} value=""{value}"" />");

        string[] errors = harness.InternalErrors;
        Assert.That(errors, Has.Length.EqualTo(1), string.Join("\n", errors));
        Assert.That(errors[0], Does.Contain("[async]").And.Contain($"'{setting}'").And.Contain($"\"{value}\"")
            .And.Contain(accepted).And.Contain($"default, {defaultValue}"));
        if (setting == "overflow")
        {
            // Ordinal: NUnit's Contain is culture-sensitive, and Thai ignores the dot.
            Assert.That(errors[0].Contains("Grow.", StringComparison.Ordinal), Is.False, "Grow is not listed as accepted: " + errors[0]);
        }

        AsyncForwardingAppender async = Async(harness);
        harness.Logger().Info("still logging");
        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(Child(harness).Lines, Is.EqualTo(new[] { "still logging" }));
        Assert.That(async.Settings!.BufferSize, Is.EqualTo(8192));
        Assert.That(WaitStrategyOf(async), Is.EqualTo("AdaptiveWaitStrategy"));
    }

    [Test]
    public void ValidSettings_NoError_AndTheyTakeEffect(
        [Values("Adaptive", "Blocking", "sleeping", "Yielding", "BusySpin")] string wait, [Values("Multi", "single")] string producer)
    {
        var harness = Configure($@"<bufferSize value=""8"" /><waitStrategy value=""{wait}"" /><producerType value=""{producer}"" />");
        for (int i = 0; i < 100; i++)
        {
            harness.Logger().Info("e" + i); // from the test thread only: one producer
        }

        AsyncForwardingAppender async = Async(harness);
        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(harness.InternalErrors, Is.Empty);
        Assert.That(Child(harness).Lines, Is.EqualTo(Enumerable.Range(0, 100).Select(i => "e" + i)));
        Assert.That(async.Settings!.BufferSize, Is.EqualTo(8));
        Assert.That(WaitStrategyOf(async), Is.EqualTo(char.ToUpperInvariant(wait[0]) + wait.Substring(1) + "WaitStrategy"));
    }

    [Test]
    public void SingleProducer_UsedFromTwoThreads_IsReportedToLogLogAndTheErrorHandler_AndLosesNothing()
    {
        var harness = Configure(@"<producerType value=""Single"" />");
        AsyncForwardingAppender async = Async(harness);
        var handler = new RecordingErrorHandler();
        async.ErrorHandler = handler;

        harness.Logger().Info("from the owner");
        var other = new Thread(() => harness.Logger().Info("from another thread"));
        other.Start();
        Assert.That(other.Join(Wait), Is.True);
        harness.Logger().Info("from the owner again");

        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(Child(harness).Lines, Is.EqualTo(new[] { "from the owner", "from another thread", "from the owner again" }));
        Assert.That(harness.InternalErrors.Count(e => e.Contains("[async]") && e.Contains("producerType=Single")), Is.EqualTo(1),
            string.Join("\n", harness.InternalErrors));
        Assert.That(handler.Errors.Count(e => e.Contains("producerType=Single")), Is.EqualTo(1));
    }

    [Test]
    public void SingleProducer_EventsFromBeforeActivation_DoNotBindTheRingToTheActivatingThread()
    {
        var async = new DisruptorAsyncAppender { Name = "early", ProducerType = "Single" };
        var handler = new RecordingErrorHandler();
        async.ErrorHandler = handler;
        var child = new RecordingAppender { Name = "child" };
        child.ActivateOptions();
        async.AddAppender(child);
        using var appendedEarly = new ManualResetEventSlim();
        using var activated = new ManualResetEventSlim();

        // The application's one logging thread logs before and after the appender is activated on another thread.
        var application = new Thread(() =>
        {
            async.DoAppend(new LoggingEvent(GetType(), null, "app", Level.Info, "before activation", null));
            appendedEarly.Set();
            activated.Wait();
            for (int i = 0; i < 3; i++)
            {
                async.DoAppend(new LoggingEvent(GetType(), null, "app", Level.Info, "after " + i, null));
            }
        });
        application.Start();
        Assert.That(appendedEarly.Wait(Wait), Is.True);
        async.ActivateOptions(); // queues the early event from this thread
        activated.Set();
        Assert.That(application.Join(Wait), Is.True);

        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(child.Lines, Is.EqualTo(new[] { "before activation", "after 0", "after 1", "after 2" }));
        Assert.That(handler.Errors, Is.Empty, "one application thread is no misuse");
        async.Close();
    }

    private static string WaitStrategyOf(AsyncForwardingAppender async) => async.Lifecycle.Running!.Wait.GetType().Name;
}
