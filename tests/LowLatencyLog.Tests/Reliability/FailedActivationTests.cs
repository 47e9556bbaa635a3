using System;
using System.Diagnostics;
using System.Linq;
using System.Threading.Tasks;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Appender;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Reliability;

/// <summary>
/// An activation that fails half-way (the worker thread refused, metrics that cannot register) or that cannot move the
/// events logged before it: no logging thread waits without a bound, nothing hangs shutdown, and the application keeps
/// logging (a worker that cannot start leaves the children called on the logging threads).
/// </summary>
public sealed class FailedActivationTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [Test]
    public void AWorkerThreadThatCannotStart_ChildrenGetEveryEventOnTheLoggingThreads_AndCloseCompletes()
    {
        var messages = new System.Collections.Concurrent.ConcurrentQueue<string>();
        LogLog.LogReceived += Received;
        try
        {
            var appender = new SeamAppender { Name = "refused", FailStart = true };
            var child = new RecordingAppender { Name = "child" };
            child.ActivateOptions();
            appender.AddAppender(child);
            appender.DoAppend(Event("early 0")); // before activation, as log4net 3.5 may append
            appender.DoAppend(Event("early 1"));

            appender.ActivateOptions();
            Assert.That(messages, Has.Some.Contains("could not start its worker thread"));

            Task other = Task.Run(() => appender.DoAppend(Event("from another thread")));
            Assert.That(other.Wait(Bound), Is.True, "a logging thread returns");
            appender.DoAppend(Event("after"));
            Assert.That(appender.Flush(1000), Is.True);

            var closing = Task.Run(appender.Close);
            Assert.That(closing.Wait(Bound), Is.True, "Close completes");
            Assert.That(child.Lines, Is.EqualTo(new[] { "early 0", "early 1", "from another thread", "after" }));
        }
        finally
        {
            LogLog.LogReceived -= Received;
        }

        void Received(object? sender, LogReceivedEventArgs e) => messages.Enqueue(e.LogLog.Message);
    }

    [Test]
    public void MetricsThatCannotRegister_TheAppenderStillDelivers()
    {
        var appender = new SeamAppender { Name = "no-metrics", FailMetrics = true };
        var child = new RecordingAppender { Name = "child" };
        child.ActivateOptions();
        appender.AddAppender(child);
        appender.DoAppend(Event("early"));
        appender.ActivateOptions();

        Task other = Task.Run(() => appender.DoAppend(Event("later")));
        Assert.That(other.Wait(Bound), Is.True);
        Assert.That(appender.Flush(10_000), Is.True);
        appender.Close();
        Assert.That(child.Lines, Is.EqualTo(new[] { "early", "later" }));
    }

    /// <summary>More early events than the buffer takes, and a child that blocks: activation gives up after
    /// <c>shutdownTimeout</c> without progress and counts the rest, instead of spinning for ever with every logging
    /// thread waiting behind it.</summary>
    [Test]
    public void EarlyEventsThatCannotBeMoved_ActivationGivesUpAfterTheTimeout_AndCountsThem()
    {
        var appender = new SeamAppender { Name = "stuck", BufferSize = "8", ShutdownTimeout = "500" };
        var child = new RecordingAppender { Name = "child" };
        child.ActivateOptions();
        child.Hold(); // the worker blocks in the child, so no room is made
        appender.AddAppender(child);
        for (int i = 0; i < 100; i++)
        {
            appender.DoAppend(Event("early " + i));
        }

        var clock = Stopwatch.StartNew();
        Task activation = Task.Run(appender.ActivateOptions);
        Assert.That(activation.Wait(Bound), Is.True, "ActivateOptions returns");
        Task logging = Task.Run(() => appender.DoAppend(Event("meanwhile")));
        Assert.That(logging.Wait(Bound), Is.True, "a logging thread returns");
        TestContext.Out.WriteLine($"activation gave up after {clock.ElapsedMilliseconds} ms");

        child.Open();
        appender.Close();
        Assert.That(appender.UndeliveredCount + appender.DiscardedCount, Is.GreaterThan(0), "what could not be queued is counted");
        int delivered = child.Lines.Count(l => l.StartsWith("early ", StringComparison.Ordinal) || l == "meanwhile");
        Assert.That(delivered + appender.UndeliveredCount + appender.DiscardedCount, Is.EqualTo(101), "every event is delivered or counted, once");
    }

    [Test]
    public void AWorkerThreadThatCannotStart_AFlushLosesNoTextOfALog4netFileAppenderWithoutImmediateFlush()
    {
        string path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "lll-" + Guid.NewGuid().ToString("N") + ".log");
        try
        {
            var appender = new SeamAppender { Name = "refused", FailStart = true };
            var file = new log4net.Appender.FileAppender
            {
                Name = "file",
                File = path,
                ImmediateFlush = false,
                Layout = new log4net.Layout.PatternLayout("%message%newline"),
            };
            file.ActivateOptions();
            appender.AddAppender(file);
            appender.ActivateOptions();

            appender.DoAppend(Event("one"));
            appender.DoAppend(Event("two"));
            Assert.That(appender.Flush(1000), Is.False, "not flushed: the child cannot flush safely in that mode");
            appender.DoAppend(Event("three"));
            appender.Close();

            Assert.That(System.IO.File.ReadAllLines(path), Is.EqualTo(new[] { "one", "two", "three" }));
        }
        finally
        {
            System.IO.File.Delete(path);
        }
    }

    private static LoggingEvent Event(string message) =>
        new LoggingEvent(typeof(FailedActivationTests), null, "failed-activation", Level.Info, message, null);

    /// <summary>An async appender whose worker start or metrics registration can be made to fail.</summary>
    private sealed class SeamAppender : AsyncForwardingAppender
    {
        public bool FailStart { get; set; }

        public bool FailMetrics { get; set; }

        private protected override IQueueFactory CreateQueueFactory(Action<string> reportError) => BoundedQueueFactory.Instance;

        private protected override void StartWorker(AsyncDispatcher<CapturedEvent> dispatcher)
        {
            if (FailStart)
            {
                throw new OutOfMemoryException("Thread failed to start (refused by the test).");
            }

            base.StartWorker(dispatcher);
        }

        private protected override IDisposable? RegisterMetrics(AsyncDispatcher<CapturedEvent> dispatcher)
        {
            if (FailMetrics)
            {
                throw new TypeLoadException("Could not load type 'System.Diagnostics.Metrics.Meter' (refused by the test).");
            }

            return base.RegisterMetrics(dispatcher);
        }
    }
}
