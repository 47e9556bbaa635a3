using System;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using LowLatencyLog.Engine;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine;

// Close and Flush: what they deliver, what they report, and how they behave when the sink hangs or calls back in.
public sealed partial class DispatcherContractTests
{
    [Test]
    public void Close_FullQueueAndSlowSink_DeliversEverythingThenFlushesAndClosesOnce()
    {
        int capacity = _kind.RoomWhileWorkerHoldsABatch(64);
        var sink = new RecordingSink();
        var dispatcher = Start(sink, 64, OverflowAction.Block, maxBatchSize: 8);
        sink.Hold();
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        sink.WaitUntilWorkerIsHeld();
        for (int i = 1; i <= capacity; i++)
        {
            Assert.That(dispatcher.Enqueue(new TestEvent(0, i), true), Is.True);
        }

        Assert.That(dispatcher.QueueDepth, Is.EqualTo(capacity), "the queue is full");
        sink.OnDeliver = _ => Thread.Sleep(2); // slow child
        Task<bool> close = Task.Run(() => dispatcher.Close(LongTimeout));
        SpinWait.SpinUntil(() => dispatcher.IsClosed, LongTimeout);
        Assert.That(dispatcher.Enqueue(new TestEvent(1, 0), true), Is.False, "closed: no longer accepting");
        sink.Open();

        Assert.That(close.Wait(LongTimeout * 2), Is.True, "Close returned");
        Assert.That(close.Result, Is.True, "everything drained in time");
        Assert.That(sink.Events.Select(e => e.Sequence), Is.EqualTo(Enumerable.Range(0, capacity + 1)));
        Assert.That(sink.CloseCount, Is.EqualTo(1));
        string[] tail = sink.Operations.TakeLast(2).ToArray();
        Assert.That(tail, Is.EqualTo(new[] { "F", "C" }), "flushed, then closed");
        Assert.That(dispatcher.Close(LongTimeout), Is.True, "Close is idempotent");
        Assert.That(sink.CloseCount, Is.EqualTo(1));
    }

    [Test]
    public void Close_RacingProducers_EveryAcceptedEventIsDeliveredAndNothingElse()
    {
        for (int round = 0; round < 20; round++)
        {
            const int producers = 4;
            var sink = new RecordingSink();
            var dispatcher = Start(sink, capacity: 256, round % 2 == 0 || !_kind.SupportsGrow ? OverflowAction.Block : OverflowAction.Grow, maxBatchSize: 32);
            var accepted = new int[producers];
            using var running = new CountdownEvent(producers);
            var threads = Enumerable.Range(0, producers).Select(p => new Thread(() =>
            {
                running.Signal();
                for (int i = 0; ; i++)
                {
                    if (!dispatcher.Enqueue(new TestEvent(p, i), true))
                    {
                        break; // closed: refused, and every later event is refused too
                    }

                    accepted[p]++;
                }
            })).ToArray();
            foreach (var thread in threads)
            {
                thread.Start();
            }

            running.Wait();
            sink.WaitUntilCount(1000 * (round % 4 + 1)); // close at different depths of the run
            Assert.That(dispatcher.Close(LongTimeout), Is.True);
            foreach (var thread in threads)
            {
                Assert.That(thread.Join(LongTimeout), Is.True);
            }

            TestEvent[] events = sink.Events;
            for (int p = 0; p < producers; p++)
            {
                int[] sequences = events.Where(e => e.Producer == p).Select(e => e.Sequence).ToArray();
                Assert.That(sequences, Is.EqualTo(Enumerable.Range(0, accepted[p])), $"round {round}, producer {p}");
            }
        }
    }

    [Test]
    public void Close_HangingSink_ReturnsFalseAndReportsWhatIsLeft()
    {
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 128, OverflowAction.Block, maxBatchSize: 8);
        sink.Hold();
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        sink.WaitUntilWorkerIsHeld();
        for (int i = 1; i <= 50; i++)
        {
            dispatcher.Enqueue(new TestEvent(0, i), true);
        }

        Task<bool> close = Task.Run(() => dispatcher.Close(200));
        Assert.That(close.Wait(LongTimeout), Is.True, "Close is bounded by its timeout");
        Assert.That(close.Result, Is.False);
        Assert.That(sink.Errors, Has.Some.Contains("50 queued event(s) will not be delivered").And.Contains("batch of 1 event(s)"));

        sink.Open(); // the child returns at last: the worker drops the rest, closes the sink and ends
        Assert.That(dispatcher.WorkerThread.Join(LongTimeout), Is.True);
        Assert.That(dispatcher.DeliveredCount, Is.EqualTo(1));
        Assert.That(dispatcher.UndeliveredCount, Is.EqualTo(50));
        Assert.That(sink.CloseCount, Is.EqualTo(1));
    }

    [Test]
    public void Close_TimedOut_LaterBatchesAreCountedAsUndelivered_AndFlushFails()
    {
        var sink = new RecordingSink();
        using var inFlush = new ManualResetEventSlim();
        using var release = new ManualResetEventSlim();
        int flushes = 0;
        sink.OnFlush = () =>
        {
            if (Interlocked.Increment(ref flushes) == 1)
            {
                inFlush.Set();
                release.Wait(); // a child that hangs in Flush
            }
        };
        var dispatcher = Start(sink, capacity: 64, OverflowAction.Block);
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        Assert.That(inFlush.Wait(LongTimeout), Is.True);
        for (int i = 1; i <= 3; i++)
        {
            dispatcher.Enqueue(new TestEvent(0, i), true);
        }

        Assert.That(dispatcher.QueueDepth, Is.EqualTo(3));
        Task<bool> flush = Task.Run(() => dispatcher.Flush(LongTimeout));
        Assert.That(dispatcher.Close(200), Is.False);
        release.Set();

        Assert.That(dispatcher.WorkerThread.Join(LongTimeout), Is.True);
        Assert.That(flush.Wait(LongTimeout), Is.True);
        Assert.That(flush.Result, Is.False, "events behind the abandoned close were not delivered");
        Assert.That(dispatcher.DeliveredCount, Is.EqualTo(1));
        Assert.That(dispatcher.UndeliveredCount, Is.EqualTo(3), "every accepted event is delivered or counted");
        Assert.That(dispatcher.Close(1000), Is.False, "a second Close still reports the loss");
    }

    [Test]
    public void Close_RejectsLaterEventsWithOneReportedError()
    {
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 16, OverflowAction.Block);
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        Assert.That(dispatcher.Close(LongTimeout), Is.True);

        Assert.That(dispatcher.Enqueue(new TestEvent(0, 1), true), Is.False);
        Assert.That(dispatcher.Enqueue(new TestEvent(0, 2), false), Is.False);
        Assert.That(dispatcher.RejectedAfterCloseCount, Is.EqualTo(2));
        Assert.That(sink.Errors.Count(e => e.Contains("after the appender was closed")), Is.EqualTo(1));
        Assert.That(sink.Count, Is.EqualTo(1));
        Assert.That(dispatcher.Flush(1000), Is.True, "a closed, drained dispatcher has nothing left to flush");
    }

    [Test]
    public void Close_FromInsideTheSink_DoesNotDeadlock()
    {
        AsyncDispatcher<TestEvent>? dispatcher = null;
        bool? innerResult = null;
        var sink = new RecordingSink();
        sink.OnDeliver = events =>
        {
            if (events.Any(e => e.Sequence == 5))
            {
                innerResult = dispatcher!.Close(LongTimeout); // e.g. a child that reconfigures log4net
            }
        };
        dispatcher = Start(sink, capacity: 64, OverflowAction.Block);
        for (int i = 0; i < 10; i++)
        {
            dispatcher.Enqueue(new TestEvent(0, i), true);
            dispatcher.Flush(LongTimeout);
        }

        Assert.That(dispatcher.WorkerThread.Join(LongTimeout), Is.True);
        Assert.That(innerResult, Is.False, "the worker cannot wait for itself");
        Assert.That(sink.Events.Select(e => e.Sequence), Is.EqualTo(Enumerable.Range(0, 6)));
        Assert.That(sink.CloseCount, Is.EqualTo(1));
    }

    [Test]
    public void Flush_FromTheWorkerItself_FlushesButDoesNotPromiseDelivery()
    {
        AsyncDispatcher<TestEvent>? dispatcher = null;
        bool? inner = null;
        var sink = new RecordingSink();
        sink.OnDeliver = _ => inner ??= dispatcher!.Flush(LongTimeout);
        dispatcher = Start(sink, capacity: 16, OverflowAction.Block);
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        Assert.That(dispatcher.Flush(LongTimeout), Is.True);
        Assert.That(inner, Is.False);
    }

    [Test]
    public void Flush_FalseWhileTheSinkIsHeld_TrueOnceEverythingIsDelivered()
    {
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 256, OverflowAction.Block);
        sink.Hold();
        for (int i = 0; i < 10; i++)
        {
            dispatcher.Enqueue(new TestEvent(0, i), true);
        }

        sink.WaitUntilWorkerIsHeld();
        Assert.That(dispatcher.Flush(100), Is.False);
        sink.Open();
        Assert.That(dispatcher.Flush(LongTimeout), Is.True);
        Assert.That(sink.Count, Is.EqualTo(10), "everything accepted before Flush is delivered when it returns true");
        Assert.That(sink.Operations.Last(), Is.EqualTo("F"), "and the sink was flushed after it");
    }

    [Test]
    public void Flush_TellsTheTruthAboutTheSinksFlush_AndAlwaysReachesTheSink()
    {
        var sink = new RecordingSink { FlushResult = false };
        var dispatcher = Start(sink, capacity: 64, OverflowAction.Block);
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        Assert.That(dispatcher.Flush(LongTimeout), Is.False, "a child whose flush failed makes Flush false");

        sink.FlushResult = true;
        int flushes = sink.FlushCount;
        Assert.That(dispatcher.Flush(LongTimeout), Is.True, "nothing new was delivered, yet the explicit flush reaches the sink");
        Assert.That(sink.FlushCount, Is.GreaterThan(flushes));

        sink.OnFlush = () => throw new InvalidOperationException("flush threw");
        Assert.That(dispatcher.Flush(LongTimeout), Is.False, "a flush that throws is a failed flush");
        Assert.That(sink.Errors, Has.Some.Contains("flush threw"));
    }

    [Test]
    public void Flush_UnderContinuousLoad_CompletesWithoutWaitingForTheQueueToEmpty()
    {
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 1024, OverflowAction.Block);
        using var stop = new CancellationTokenSource();
        int sent = 0;
        Task producer = Task.Run(() =>
        {
            while (!stop.IsCancellationRequested)
            {
                dispatcher.Enqueue(new TestEvent(0, sent), true);
                Volatile.Write(ref sent, sent + 1);
            }
        });

        for (int i = 0; i < 20; i++)
        {
            int sentBefore = Volatile.Read(ref sent);
            Assert.That(dispatcher.Flush(LongTimeout), Is.True);
            Assert.That(sink.Count, Is.GreaterThanOrEqualTo(sentBefore), "everything sent before Flush was delivered when it returned");
        }

        stop.Cancel();
        producer.Wait(LongTimeout);
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(sink.Count, Is.EqualTo(sent));
    }
}
