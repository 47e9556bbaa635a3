using System;
using System.Diagnostics;
using System.Linq;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using System.Threading.Tasks;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Engine;
using LowLatencyLog.Runtime;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine;

/// <summary>
/// The worker's robustness and the wake handshake, for every queue and every wait strategy: an interrupted worker
/// survives, an enqueue landing in any phase of the worker's wait is delivered, and the hot fields are padded.
/// </summary>
[TestFixtureSource(typeof(QueueKind), nameof(QueueKind.All))]
public sealed class DispatcherWorkerTests
{
    private const int LongTimeout = 30_000;
    private readonly QueueKind _kind;

    public DispatcherWorkerTests(QueueKind kind) => _kind = kind;

    private static string[] Strategies => Enum.GetNames(typeof(WaitStrategyKind));

    [Test]
    public void Worker_InterruptedWhileWaiting_SurvivesReportsAndKeepsDelivering()
    {
        var sink = new RecordingSink();
        var dispatcher = new AsyncDispatcher<TestEvent>("interrupted", _kind.Factory, 64, sink, OverflowAction.Block, 16, WaitStrategyKind.Blocking);
        dispatcher.Start();
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        sink.WaitUntilCount(1);

        Assert.That(SpinWait.SpinUntil(() => dispatcher.IsWorkerParked(), LongTimeout), Is.True, "the idle worker sleeps");
        dispatcher.WorkerThread.Interrupt(); // before the fix this escaped the loop and ended the process

        sink.WaitUntil(() => sink.Errors.Any(e => e.Contains("unexpected error")), "the interrupt to be reported");
        for (int i = 1; i <= 10; i++)
        {
            Assert.That(dispatcher.Enqueue(new TestEvent(0, i), true), Is.True);
        }

        Assert.That(dispatcher.Flush(LongTimeout), Is.True);
        Assert.That(dispatcher.WorkerThread.IsAlive, Is.True);
        Assert.That(sink.Events.Select(e => e.Sequence), Is.EqualTo(Enumerable.Range(0, 11)));
        Assert.That(dispatcher.Close(LongTimeout), Is.True, "Close does not wait out its timeout");
    }

    [Test]
    public void Worker_SinkCloseThrows_CloseStillReturnsAtOnce()
    {
        var sink = new ThrowingOnCloseSink();
        var dispatcher = new AsyncDispatcher<TestEvent>("close-throws", _kind.Factory, 64, sink, OverflowAction.Block, 16, WaitStrategyKind.Blocking);
        dispatcher.Start();
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(sink.Errors, Has.Some.Contains("close failed"));
    }

    /// <summary>
    /// Enqueues after waits of growing length, so that over the run the event lands while the worker is delivering,
    /// spinning, between setting its flag and re-checking, and asleep. Every event must arrive; nothing is timed.
    /// </summary>
    [TestCaseSource(nameof(Strategies))]
    public void Enqueue_LandingInEveryPhaseOfTheWorkersWait_IsAlwaysDelivered(string strategyName)
    {
        var strategy = (WaitStrategyKind)Enum.Parse(typeof(WaitStrategyKind), strategyName);
        const int roundTrips = 400;
        var sink = new RecordingSink();
        var dispatcher = new AsyncDispatcher<TestEvent>("round-trip", _kind.Factory, 64, sink, OverflowAction.Block, 16, strategy);
        dispatcher.Start();
        try
        {
            for (int i = 0; i < roundTrips; i++)
            {
                int phase = i % 8;
                if (phase == 7)
                {
                    // Only Blocking parks at once; Adaptive parks after a second idle (its own tests below).
                    SpinWait.SpinUntil(() => dispatcher.IsWorkerParked() || strategy != WaitStrategyKind.Blocking, LongTimeout);
                }
                else
                {
                    Thread.SpinWait(1 << (2 * phase)); // 1 to 4096 pause iterations: from nanoseconds to tens of microseconds
                }

                dispatcher.Enqueue(new TestEvent(0, i), true);
                sink.WaitUntilCount(i + 1);
            }

            Assert.That(sink.Events.Select(e => e.Sequence), Is.EqualTo(Enumerable.Range(0, roundTrips)));
        }
        finally
        {
            dispatcher.Close(LongTimeout);
        }
    }

    /// <summary>
    /// Async 13: with the default wait, a producer that keeps logging (here every 2 ms, far below the parking
    /// threshold) never has to wake the worker; once the worker has been idle past the threshold it parks, and the next
    /// event wakes it once and is delivered.
    /// </summary>
    [Test]
    public void AdaptiveWait_APacedProducerNeverWakesTheWorker_AnIdleWorkerParksAndTheNextEventWakesItOnce()
    {
        var sink = new RecordingSink();
        var dispatcher = new AsyncDispatcher<TestEvent>("paced", _kind.Factory, 64, sink, OverflowAction.Block, 16, WaitStrategyKind.Adaptive);
        dispatcher.Start();
        try
        {
            const int events = 200;
            // The worker can park only after a second with nothing to take, so only a gap that long between two calls
            // (this thread descheduled on a loaded machine) may cost a wake-up; the 2 ms pace itself never does.
            long parkAfter = Stopwatch.Frequency * AdaptiveWaitStrategy.ParkAfterMilliseconds / 1000;
            int longGaps = 0;
            long previousStart = Stopwatch.GetTimestamp();
            for (int i = 0; i < events; i++)
            {
                long start = Stopwatch.GetTimestamp();
                Assert.That(dispatcher.Enqueue(new TestEvent(0, i), true), Is.True);
                if (i > 0 && Stopwatch.GetTimestamp() - previousStart >= parkAfter)
                {
                    longGaps++;
                }

                previousStart = start;
                Thread.Sleep(2);
            }

            sink.WaitUntilCount(events);
            Assert.That(ParkingOf.Dispatcher(dispatcher).WakeUps, Is.LessThanOrEqualTo(longGaps), "no event of the paced run had to wake the worker");
            long beforePark = ParkingOf.Dispatcher(dispatcher).WakeUps;

            Assert.That(SpinWait.SpinUntil(() => dispatcher.IsWorkerParked(), LongTimeout), Is.True, "the idle worker parks");
            Assert.That(dispatcher.Enqueue(new TestEvent(0, events), true), Is.True);
            sink.WaitUntilCount(events + 1);
            Assert.That(ParkingOf.Dispatcher(dispatcher).WakeUps, Is.EqualTo(beforePark + 1), "the first event after the park woke it, once");
            Assert.That(sink.Events.Select(e => e.Sequence), Is.EqualTo(Enumerable.Range(0, events + 1)));
        }
        finally
        {
            dispatcher.Close(LongTimeout);
        }
    }

    /// <summary><c>Blocking</c> parks as soon as it runs dry, so the same paced producer wakes it (the cost it documents).</summary>
    [Test]
    public void BlockingWait_APacedProducerWakesTheWorker_AndEveryEventArrives()
    {
        var sink = new RecordingSink();
        var dispatcher = new AsyncDispatcher<TestEvent>("paced-blocking", _kind.Factory, 64, sink, OverflowAction.Block, 16, WaitStrategyKind.Blocking);
        dispatcher.Start();
        try
        {
            const int events = 100;
            for (int i = 0; i < events; i++)
            {
                SpinWait.SpinUntil(() => dispatcher.IsWorkerParked(), LongTimeout);
                Assert.That(dispatcher.Enqueue(new TestEvent(0, i), true), Is.True);
                sink.WaitUntilCount(i + 1);
            }

            // A parked worker lowers its flag for a moment each time its 100 ms safety timeout runs out, and a worker
            // that finds the event already published after raising its flag takes it down without sleeping; a call
            // that reads the flag then (either thread descheduled on a loaded machine) finds no one to wake.
            long missed = ParkingOf.Dispatcher(dispatcher).SafetyTimeouts + ParkingOf.Dispatcher(dispatcher).WorkFoundBeforeSleep;
            Assert.That(ParkingOf.Dispatcher(dispatcher).WakeUps, Is.LessThanOrEqualTo(events));
            Assert.That(ParkingOf.Dispatcher(dispatcher).WakeUps, Is.GreaterThanOrEqualTo(events - missed), "each event found the worker parked and woke it");
            Assert.That(sink.Events.Select(e => e.Sequence), Is.EqualTo(Enumerable.Range(0, events)));
        }
        finally
        {
            dispatcher.Close(LongTimeout);
        }
    }

    [TestCaseSource(nameof(Strategies))]
    public void FourProducers_EveryWaitStrategy_LoseNothingAndKeepOrder(string strategyName)
    {
        var strategy = (WaitStrategyKind)Enum.Parse(typeof(WaitStrategyKind), strategyName);
        const int producers = 4, perProducer = 20_000;
        var sink = new RecordingSink();
        var dispatcher = new AsyncDispatcher<TestEvent>("strategy", _kind.Factory, 128, sink, OverflowAction.Block, 32, strategy);
        dispatcher.Start();
        var refused = new int[producers];
        Parallel.For(0, producers, new ParallelOptions { MaxDegreeOfParallelism = producers }, p =>
        {
            for (int i = 0; i < perProducer; i++)
            {
                refused[p] += dispatcher.Enqueue(new TestEvent(p, i), true) ? 0 : 1;
            }
        });

        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(refused, Has.All.Zero);
        var next = new int[producers];
        foreach (TestEvent e in sink.Events)
        {
            Assert.That(e.IsIntact && e.Sequence == next[e.Producer], Is.True, $"event {e} intact and in order");
            next[e.Producer]++;
        }

        Assert.That(next, Has.All.EqualTo(perProducer));
    }

    [Test]
    public void AcceptedCount_CountsEveryEnqueueThatReturnedTrue()
    {
        var sink = new RecordingSink();
        var dispatcher = new AsyncDispatcher<TestEvent>("accepted", _kind.Factory, 16, sink, OverflowAction.Discard, 16, WaitStrategyKind.Blocking);
        sink.Hold();
        dispatcher.Start();
        int accepted = 0;
        for (int i = 0; i < 100; i++)
        {
            accepted += dispatcher.Enqueue(new TestEvent(0, i), true) ? 1 : 0;
        }

        Assert.That(dispatcher.AcceptedCount, Is.EqualTo(accepted));
        Assert.That(accepted + dispatcher.DiscardedCount, Is.EqualTo(100));
        sink.Open();
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(sink.Count, Is.EqualTo(accepted));
    }

    private sealed class ThrowingOnCloseSink : IBatchSink<TestEvent>
    {
        private readonly RecordingSink _inner = new RecordingSink();

        public string[] Errors => _inner.Errors;

        public void Deliver(TestEvent[] items, int count) => _inner.Deliver(items, count);

        public bool Flush(int timeoutMilliseconds) => true;

        public void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded)
        {
        }

        public void Close() => throw new InvalidOperationException("close failed");

        public void ReportError(string message, Exception? exception) => _inner.ReportError(message, exception);
    }
}

/// <summary>Parts of the engine that do not depend on the queue: wait strategies, padding, the capacity rule.</summary>
public sealed class EngineInvariantTests
{
    [Test]
    public void BlockingWait_ReturnsOnItsOwnWhenWorkAppearsWithoutASignal()
    {
        // A queue that broke its fence promise would publish without the producer seeing the flag: the worker must
        // still find the work, at the cost of latency (the safety timeout), never of the event.
        var wait = new BlockingWaitStrategy(claimIsFullFence: true);
        var work = new Flag();
        Task waiting = Task.Run(() => wait.WaitForWork(work));
        Assert.That(SpinWait.SpinUntil(() => wait.Parking.IsParked, 30_000), Is.True);
        Volatile.Write(ref work.Value, true); // no SignalWork, no Wake
        Assert.That(waiting.Wait(30_000), Is.True, "the bounded sleep notices the work by itself");
    }

    [Test]
    public void BlockingWait_InterruptedInItsSleep_TakesItsFlagDown()
    {
        // The worker reports an interrupt and goes on awake: a flag left raised would have producers wake no one.
        var wait = new BlockingWaitStrategy(claimIsFullFence: true);
        Exception? thrown = null;
        var worker = new Thread(() =>
        {
            try
            {
                wait.WaitForWork(new Flag());
            }
            catch (ThreadInterruptedException e)
            {
                thrown = e;
            }
        });
        worker.Start();
        Assert.That(SpinWait.SpinUntil(() => wait.Parking.IsParked, 30_000), Is.True);

        worker.Interrupt();

        Assert.That(worker.Join(30_000), Is.True);
        Assert.That(thrown, Is.InstanceOf<ThreadInterruptedException>());
        Assert.That(wait.Parking.IsParked, Is.False, "the flag came down with the interrupted sleep");
    }

    [Test]
    public void BlockingWait_WokenBySignal_EveryTime_AndTheFlagComesDown()
    {
        var wait = new BlockingWaitStrategy(claimIsFullFence: false);
        var work = new Flag();
        for (int round = 0; round < 50; round++)
        {
            Volatile.Write(ref work.Value, false);
            Task waiting = Task.Run(() => wait.WaitForWork(work));
            Assert.That(SpinWait.SpinUntil(() => wait.Parking.IsParked, 30_000), Is.True);
            Volatile.Write(ref work.Value, true);
            wait.SignalWork();
            Assert.That(waiting.Wait(30_000), Is.True);
            Assert.That(wait.Parking.IsParked, Is.False);
        }
    }

    [Test]
    public void Padding_TheWorkersCountersHaveLinesOfTheirOwn()
    {
        int line = CacheLine.Size;
        int first = Marshal.OffsetOf<DispatcherWorkerState>(nameof(DispatcherWorkerState.Drained)).ToInt32();
        int last = Marshal.OffsetOf<DispatcherWorkerState>(nameof(DispatcherWorkerState.ConsecutiveFaults)).ToInt32();
        Assert.That(first, Is.GreaterThanOrEqualTo(line), "padding before the worker's counters");
        Assert.That(Unsafe.SizeOf<DispatcherWorkerState>() - (last + sizeof(int)), Is.GreaterThanOrEqualTo(line), "padding after them");
    }

    [Test]
    public void Dispatcher_FieldsWrittenAfterConstructionArePaddedOrRare()
    {
        // What producers read on every enqueue (_queue, _wait, _overflow) is readonly. Anything written later must sit
        // in a padded struct, except a few fields written only on close or on errors.
        string[] rare = { "_rejectedAfterClose", "_undelivered", "_started", "_abandoned", "_stalledAt" };
        Type[] padded = { typeof(PaddedLong), typeof(PaddedInt), typeof(DispatcherWorkerState) };
        FieldInfo[] mutable = typeof(AsyncDispatcher<TestEvent>)
            .GetFields(BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public)
            .Where(f => !f.IsInitOnly)
            .ToArray();

        Assert.That(mutable.Where(f => !padded.Contains(f.FieldType) && !rare.Contains(f.Name)).Select(f => f.Name), Is.Empty);
        Assert.That(mutable.Select(f => f.Name), Is.SupersetOf(new[] { "_discarded", "_blockedProducers", "_state" }));
        Assert.That(typeof(AsyncDispatcher<TestEvent>).GetField("_queue", BindingFlags.Instance | BindingFlags.NonPublic)!.IsInitOnly, Is.True);
    }

    [Test]
    public void Capacity_ANonPowerOfTwoIsRefusedOnlyByAQueueThatRequiresOne()
    {
        var sink = new RecordingSink();
        Assert.That(
            () => new AsyncDispatcher<TestEvent>("p2", new PowerOfTwoFactory(), 100, sink, OverflowAction.Block, 16, WaitStrategyKind.Blocking),
            Throws.InstanceOf<ArgumentOutOfRangeException>());
        Assert.That(new AsyncDispatcher<TestEvent>("p2", new PowerOfTwoFactory(), 128, sink, OverflowAction.Block, 16, WaitStrategyKind.Blocking), Is.Not.Null);
        foreach (QueueKind kind in QueueKind.All.Where(k => !k.Factory.RequiresPowerOfTwo))
        {
            Assert.That(new AsyncDispatcher<TestEvent>("any", kind.Factory, 100, sink, OverflowAction.Block, 16, WaitStrategyKind.Blocking), Is.Not.Null, kind.Name);
        }
    }

    [TestCase(100, 100)]
    [TestCase(5, 5)]
    [TestCase(1, 2)]
    public void HotSwap_HoldsAtMostItsCapacity_AcrossBothBuffers(int capacity, int expected)
    {
        var queue = new HotSwapQueue<int>(capacity, grow: false);
        Assert.That(queue.Capacity, Is.EqualTo(expected));
        int accepted = 0;
        var buffer = new int[1];
        for (int round = 0; round < 4; round++)
        {
            while (queue.TryEnqueue(accepted) == EnqueueResult.Enqueued)
            {
                accepted++;
            }

            Assert.That(queue.Count, Is.LessThanOrEqualTo(expected), $"round {round}");
            queue.Drain(buffer); // takes one item; swaps buffers when the draining one is exhausted
        }

        Assert.That(queue.EnqueuedCount, Is.EqualTo(accepted));
    }

    [Test]
    public void HotSwap_RoomIsFreedOnlyBySwappingBuffers()
    {
        var queue = new HotSwapQueue<int>(8, grow: false);
        for (int i = 0; i < 4; i++)
        {
            queue.TryEnqueue(i);
        }

        var one = new int[1];
        Assert.That(queue.Drain(one), Is.EqualTo(1));
        Assert.That(queue.LastDrainFreedRoom, Is.True, "the swap gave producers a fresh buffer");
        Assert.That(queue.Drain(one), Is.EqualTo(1));
        Assert.That(queue.LastDrainFreedRoom, Is.False, "taking more from the same buffer frees nothing for producers");
    }

    [Test]
    public void BoundedQueue_EveryDrainFreesRoom_AndEnqueuedCountSurvivesGrowth()
    {
        var queue = new BoundedQueue<int>(4, grow: true);
        for (int i = 0; i < 100; i++)
        {
            queue.TryEnqueue(i);
        }

        Assert.That(queue.EnqueuedCount, Is.EqualTo(100));
        var buffer = new int[10];
        Assert.That(queue.Drain(buffer), Is.EqualTo(10));
        Assert.That(queue.LastDrainFreedRoom, Is.True);
        queue.Close();
        Assert.That(queue.EnqueuedCount, Is.EqualTo(100), "a close does not change what was accepted");
    }

    private sealed class Flag : IWorkSignal
    {
        public bool Value;

        public bool HasWork => Volatile.Read(ref Value);
    }

    private sealed class PowerOfTwoFactory : IQueueFactory
    {
        public bool SupportsGrow => false;

        public bool RequiresPowerOfTwo => true;

        public IEventQueue<T> Create<T>(int capacity, bool grow) => new BoundedQueue<T>(capacity, grow);
    }
}
