using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Engine;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;
using static LowLatencyLog.Tests.Support.DeliveryAssert;

namespace LowLatencyLog.Tests.Engine.Disruptor;

/// <summary>
/// The ring under the shared dispatcher, beyond the contract suite (which runs for it through <see cref="QueueKind"/>):
/// every wait strategy and producer type under stress, a full ring under Block and Discard, a sink that always throws,
/// Close racing publishers, and a misused Single ring. Producer threads record what happened; only the test thread
/// asserts. Nothing here sleeps to synchronize or measures time.
/// </summary>
public sealed class DisruptorDispatcherTests
{
    private const int LongTimeout = 30_000;
    private static readonly TimeSpan JoinTimeout = TimeSpan.FromMinutes(2);
    private readonly List<AsyncDispatcher<TestEvent>> _created = new List<AsyncDispatcher<TestEvent>>();

    public static IEnumerable<string> WaitStrategies => Enum.GetNames(typeof(WaitStrategyKind));

    [TearDown]
    public void CloseEverything()
    {
        foreach (var dispatcher in _created)
        {
            dispatcher.Close(1000);
        }

        _created.Clear();
    }

    [Test]
    public void Stress_SixteenProducers_Multi_LosslessInOrderAndIntact([ValueSource(nameof(WaitStrategies))] string wait)
    {
        const int producers = 16, perProducer = 50_000;
        var sink = new RecordingSink();
        var dispatcher = Start(sink, ProducerType.Multi, capacity: 256, OverflowAction.Block, wait, maxBatchSize: 64);

        bool[] accepted = RunProducers(producers, perProducer, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), discardable: true));

        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(accepted, Has.All.True, "Block never refuses an event before the close");
        AssertEveryProducerComplete(sink.Events, producers, perProducer);
        Assert.That(sink.Errors, Is.Empty);
    }

    [Test]
    public void Stress_OneProducer_Single_LosslessInOrderAndIntact_AndStaysSingle([ValueSource(nameof(WaitStrategies))] string wait)
    {
        const int perProducer = 200_000;
        var sink = new RecordingSink();
        var dispatcher = Start(sink, ProducerType.Single, capacity: 64, OverflowAction.Block, wait, maxBatchSize: 16);

        bool[] accepted = RunProducers(1, perProducer, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), discardable: true));

        Assert.That(Ring(dispatcher).IsMultiProducer, Is.False, "one publishing thread is no misuse");
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(accepted, Has.All.True);
        AssertEveryProducerComplete(sink.Events, 1, perProducer);
        Assert.That(sink.Errors, Is.Empty);
    }

    [Test]
    public void ManyLapsOfARingOfEight_LosslessInOrderAndIntact(
        [Values("Blocking", "BusySpin")] string wait, [Values(false, true)] bool single)
    {
        int producers = single ? 1 : 4;
        int perProducer = single ? 100_000 : 25_000; // 12,500 laps either way
        var sink = new RecordingSink();
        var dispatcher = Start(sink, single ? ProducerType.Single : ProducerType.Multi, capacity: 8, OverflowAction.Block, wait, maxBatchSize: 8);

        bool[] accepted = RunProducers(producers, perProducer, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), discardable: true));

        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(accepted, Has.All.True);
        AssertEveryProducerComplete(sink.Events, producers, perProducer);
        Assert.That(sink.BatchSizes, Has.All.InRange(1, 8));
    }

    [Test]
    public void FullRing_UnderBlock_ProducersWaitForRoom_AndNothingIsLost([Values(false, true)] bool single)
    {
        const int capacity = 16;
        int producers = single ? 1 : 8, perProducer = single ? 10_000 : 2_000;
        var sink = new RecordingSink();
        var dispatcher = Start(sink, single ? ProducerType.Single : ProducerType.Multi, capacity, OverflowAction.Block, "Blocking", maxBatchSize: 4);
        sink.Hold();
        bool[] accepted = null!;
        var producing = new Thread(() => accepted = RunProducers(producers, perProducer, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), true)));
        producing.Start();

        // The worker holds its first batch and the ring fills up behind it: every producer is now waiting for room.
        sink.WaitUntilWorkerIsHeld();
        Assert.That(SpinWait.SpinUntil(() => dispatcher.QueueDepth == capacity, LongTimeout), Is.True, "the ring is full");
        Assert.That(dispatcher.AcceptedCount - capacity, Is.InRange(1, 4), "the held batch and a full ring, nothing more");
        Assert.That(dispatcher.DeliveredCount, Is.Zero);
        sink.Open();

        Assert.That(producing.Join(JoinTimeout), Is.True, "the producers got room");
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(accepted, Has.All.True);
        AssertEveryProducerComplete(sink.Events, producers, perProducer);
        Assert.That(dispatcher.DiscardedCount, Is.Zero);
        Assert.That(sink.Errors, Is.Empty);
    }

    [Test]
    public void FullRing_UnderDiscard_TheCountIsExact([Values(false, true)] bool single)
    {
        const int capacity = 32, sent = 10_000;
        var sink = new RecordingSink();
        var dispatcher = Start(sink, single ? ProducerType.Single : ProducerType.Multi, capacity, OverflowAction.Discard, "Blocking");
        int producers = single ? 1 : 4;
        sink.Hold();
        Assert.That(dispatcher.Enqueue(new TestEvent(99, 0), true), Is.True);
        sink.WaitUntilWorkerIsHeld(); // the worker holds one event; the ring is empty again

        // With the worker held, exactly the ring's capacity fits, whoever sends; everything else is discarded.
        // A Single ring's sends all come from this thread, its owner.
        bool[] accepted = single
            ? Enumerable.Range(0, sent).Select(i => dispatcher.Enqueue(new TestEvent(0, i), true)).ToArray()
            : RunProducers(producers, sent / producers, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), true));
        Assert.That(accepted.Count(a => a), Is.EqualTo(capacity));
        Assert.That(dispatcher.DiscardedCount, Is.EqualTo(sent - capacity));

        sink.Open();
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(sink.Errors, Is.Empty);
        Assert.That(sink.Count, Is.EqualTo(1 + capacity));
        Assert.That(sink.ReportedDiscards, Is.EqualTo(sent - capacity));
        Assert.That(sink.Events, Has.All.Matches<TestEvent>(e => e.IsIntact));
        foreach (var group in sink.Events.GroupBy(e => e.Producer))
        {
            Assert.That(group.Select(e => e.Sequence), Is.Ordered.Ascending);
        }
    }

    [Test]
    public void ASinkThatThrowsOnEveryEvent_LeavesTheRingDraining_AndProducersNeverHang([Values(false, true)] bool single)
    {
        int producers = single ? 1 : 8;
        const int perProducer = 5_000;
        var sink = new RecordingSink { OnDeliver = events => throw new InvalidOperationException("child failed") };
        var dispatcher = Start(sink, single ? ProducerType.Single : ProducerType.Multi, capacity: 16, OverflowAction.Block, "Blocking", maxBatchSize: 4);

        bool[] accepted = RunProducers(producers, perProducer, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), true));

        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(accepted, Has.All.True);
        Assert.That(dispatcher.DeliveredCount, Is.EqualTo(producers * perProducer), "every batch reached the child, which threw");
        Assert.That(sink.Errors, Has.All.Contains("child failed"));
        Assert.That(sink.Errors.Length, Is.EqualTo(sink.BatchSizes.Length));
        Assert.That(dispatcher.WorkerThread.Join(LongTimeout), Is.True);
    }

    [Test]
    public void Close_RacingPublishers_DeliveredPlusRefusedEqualsAttempted([Values(false, true)] bool single)
    {
        int producers = single ? 1 : 6;
        for (int round = 0; round < 12; round++)
        {
            const int perProducer = 20_000;
            var sink = new RecordingSink();
            // A small ring and a slow-ish batch size: some producers are waiting on claims ahead when Close comes.
            var dispatcher = Start(sink, single ? ProducerType.Single : ProducerType.Multi, capacity: 16,
                round % 3 == 2 ? OverflowAction.Discard : OverflowAction.Block, round % 2 == 0 ? "Blocking" : "Yielding", maxBatchSize: 4);
            var accepted = new int[producers];
            var refused = new int[producers];
            var acceptedAfterRefusal = new bool[producers];
            using var running = new CountdownEvent(producers);
            var threads = Enumerable.Range(0, producers).Select(p => new Thread(() =>
            {
                running.Signal();
                for (int i = 0; i < perProducer; i++)
                {
                    if (dispatcher.Enqueue(new TestEvent(p, i), discardable: false))
                    {
                        accepted[p]++;
                        acceptedAfterRefusal[p] |= refused[p] > 0;
                    }
                    else
                    {
                        refused[p]++;
                    }
                }
            })).ToArray();
            foreach (var thread in threads)
            {
                thread.Start();
            }

            running.Wait();
            sink.WaitUntilCount(200 * (round % 4 + 1)); // close at different depths of the run
            Assert.That(dispatcher.Close(LongTimeout), Is.True);
            foreach (var thread in threads)
            {
                Assert.That(thread.Join(JoinTimeout), Is.True);
            }

            TestEvent[] events = sink.Events;
            Assert.That(acceptedAfterRefusal, Has.None.True, $"round {round}: once refused, always refused");
            Assert.That(events.Length, Is.EqualTo(accepted.Sum()), $"round {round}: delivered = accepted");
            Assert.That(dispatcher.RejectedAfterCloseCount, Is.EqualTo(refused.Sum()), $"round {round}: every refusal counted");
            Assert.That(accepted.Sum() + refused.Sum(), Is.EqualTo(producers * perProducer), $"round {round}: never lost silently");
            for (int p = 0; p < producers; p++)
            {
                int[] sequences = events.Where(e => e.Producer == p).Select(e => e.Sequence).ToArray();
                Assert.That(sequences, Is.EqualTo(Enumerable.Range(0, accepted[p])), $"round {round}, producer {p}");
            }

            Assert.That(events, Has.All.Matches<TestEvent>(e => e.IsIntact));
        }
    }

    [Test]
    public void Single_MisusedByManyThreads_IsReportedOnce_AndLosesNothing([ValueSource(nameof(WaitStrategies))] string wait)
    {
        const int producers = 4, perProducer = 25_000;
        var sink = new RecordingSink();
        var dispatcher = Start(sink, ProducerType.Single, capacity: 64, OverflowAction.Block, wait, maxBatchSize: 16);

        bool[] accepted = RunProducers(producers, perProducer, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), true));

        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(accepted, Has.All.True);
        AssertEveryProducerComplete(sink.Events, producers, perProducer);
        Assert.That(Ring(dispatcher).IsMultiProducer, Is.True);
        Assert.That(sink.Errors, Has.Length.EqualTo(1));
        Assert.That(sink.Errors[0], Does.Contain("producerType=Single"));
    }

    [Test]
    public void Single_AChildLoggingBackFromTheWorker_IsASecondProducer_ReportedAndDelivered()
    {
        const int fromProducer = 1_000;
        var sink = new RecordingSink();
        AsyncDispatcher<TestEvent>? dispatcher = null;
        int once = 0;
        sink.OnDeliver = _ =>
        {
            if (Interlocked.Exchange(ref once, 1) == 0)
            {
                dispatcher!.Enqueue(new TestEvent(1, 0), discardable: false); // e.g. a child that logs an error
            }
        };
        dispatcher = Start(sink, ProducerType.Single, capacity: 1024, OverflowAction.Block, "Blocking");
        RunProducers(1, fromProducer, (p, i) => dispatcher.Enqueue(new TestEvent(0, i), true));
        sink.WaitUntilCount(fromProducer + 1); // the worker's event is logged while it delivers: close only after it

        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        TestEvent[] events = sink.Events;
        Assert.That(events.Where(e => e.Producer == 0).Select(e => e.Sequence), Is.EqualTo(Enumerable.Range(0, fromProducer)));
        Assert.That(events.Count(e => e.Producer == 1), Is.EqualTo(1), "the worker's own event is delivered too");
        Assert.That(sink.Errors, Has.Length.EqualTo(1).And.Some.Contains("producerType=Single"));
    }

    private static DisruptorQueue<TestEvent> Ring(AsyncDispatcher<TestEvent> dispatcher) =>
        (DisruptorQueue<TestEvent>)typeof(AsyncDispatcher<TestEvent>)
            .GetField("_queue", System.Reflection.BindingFlags.NonPublic | System.Reflection.BindingFlags.Instance)!
            .GetValue(dispatcher)!;

    private AsyncDispatcher<TestEvent> Start(
        RecordingSink sink, ProducerType type, int capacity, OverflowAction overflow, string wait, int maxBatchSize = 256)
    {
        var kind = (WaitStrategyKind)Enum.Parse(typeof(WaitStrategyKind), wait);
        var dispatcher = new AsyncDispatcher<TestEvent>(
            "ring-test", DisruptorQueueFactory.For(type), capacity, sink, overflow, maxBatchSize, kind);
        _created.Add(dispatcher);
        dispatcher.Start();
        return dispatcher;
    }

    /// <summary>Runs the producers to the end; returns what <paramref name="send"/> returned for each event, producer by producer.</summary>
    private static bool[] RunProducers(int producers, int perProducer, Func<int, int, bool> send)
    {
        var results = new bool[producers * perProducer];
        using var ready = new Barrier(producers);
        var threads = Enumerable.Range(0, producers).Select(p => new Thread(() =>
        {
            ready.SignalAndWait();
            for (int i = 0; i < perProducer; i++)
            {
                results[p * perProducer + i] = send(p, i);
            }
        })).ToArray();
        foreach (var thread in threads)
        {
            thread.Start();
        }

        foreach (var thread in threads)
        {
            Assert.That(thread.Join(JoinTimeout), Is.True, "producer finished");
        }

        return results;
    }
}
