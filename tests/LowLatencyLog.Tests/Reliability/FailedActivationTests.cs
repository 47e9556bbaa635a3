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
/// An activation that cannot move the events logged before it: no logging thread waits without a bound, and nothing
/// hangs shutdown. A worker that cannot start and metrics that cannot register are tested on the lifecycle itself
/// (<c>Forwarding/AppenderLifecycleTests</c>).
/// </summary>
public sealed class FailedActivationTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    /// <summary>More early events than the buffer takes, and a child that blocks: activation gives up after
    /// <c>shutdownTimeout</c> without progress and counts the rest, instead of spinning for ever with every logging
    /// thread waiting behind it.</summary>
    [Test]
    public void EarlyEventsThatCannotBeMoved_ActivationGivesUpAfterTheTimeout_AndCountsThem()
    {
        var appender = new BoundedQueueAsyncAppender { Name = "stuck", BufferSize = "8", ShutdownTimeout = "500" };
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

    private static LoggingEvent Event(string message) =>
        new LoggingEvent(typeof(FailedActivationTests), null, "failed-activation", Level.Info, message, null);

}
