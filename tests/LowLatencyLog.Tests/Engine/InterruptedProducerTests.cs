using System;
using System.Threading;
using log4net.Core;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine;

/// <summary>
/// An application thread interrupted while it waits for room: the log call returns, and the thread's own next wait
/// still sees the interrupt.
/// </summary>
public sealed class InterruptedProducerTests
{
    [Test]
    public void AnApplicationThreadInterruptedWhileItWaitsForRoom_KeepsItsInterrupt()
    {
        var child = new RecordingAppender { Name = "child" };
        child.ActivateOptions();
        child.Hold(); // the worker blocks in the child: the buffer fills and the producer waits
        var async = new BoundedQueueAsyncAppender { Name = "async", BufferSize = "1", ShutdownTimeout = "60000" };
        async.AddAppender(child);
        async.ActivateOptions();

        bool interruptSeenLater = false;
        var producer = new Thread(() =>
        {
            for (int i = 0; i < 20; i++)
            {
                async.DoAppend(new LoggingEvent(typeof(InterruptedProducerTests), null, "App", Level.Info, "e" + i, null));
            }

            try
            {
                Thread.Sleep(10_000);
            }
            catch (ThreadInterruptedException)
            {
                interruptSeenLater = true; // the application's own wait still sees the interrupt
            }
        }) { IsBackground = true };
        producer.Start();
        Assert.That(SpinWait.SpinUntil(() => (producer.ThreadState & ThreadState.WaitSleepJoin) != 0, 10_000), Is.True);
        producer.Interrupt();
        Assert.That(producer.Join(TimeSpan.FromSeconds(30)), Is.True);
        child.Open();
        async.Close();
        Assert.That(interruptSeenLater, Is.True);
    }
}
