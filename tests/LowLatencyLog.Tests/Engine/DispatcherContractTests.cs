using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using LowLatencyLog.Engine;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;
using static LowLatencyLog.Tests.Support.DeliveryAssert;

namespace LowLatencyLog.Tests.Engine;

/// <summary>
/// The behaviours every async appender shares, checked for each queue the dispatcher runs on.
/// Nothing here measures time: tests wait on signals with bounded timeouts and assert counts, order and errors.
/// </summary>
[TestFixtureSource(typeof(QueueKind), nameof(QueueKind.All))]
public sealed partial class DispatcherContractTests
{
    private const int LongTimeout = 30_000;
    private readonly QueueKind _kind;
    private readonly List<AsyncDispatcher<TestEvent>> _created = new List<AsyncDispatcher<TestEvent>>();

    public DispatcherContractTests(QueueKind kind) => _kind = kind;

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
    public void Block_EightProducers_EveryEventDeliveredOnceInProducerOrder()
    {
        const int producers = 8, perProducer = 100_000;
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 1024, OverflowAction.Block);

        RunProducers(producers, perProducer, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), discardable: true));

        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        AssertEveryProducerComplete(sink.Events, producers, perProducer);
        Assert.That(dispatcher.DeliveredCount, Is.EqualTo(producers * perProducer));
        Assert.That(dispatcher.DiscardedCount, Is.Zero);
    }

    [TestCase(false)]
    [TestCase(true)]
    public void Stress_SixteenProducersRacingATinyBuffer_LoseNothingAndKeepOrder(bool grow)
    {
        OverflowAction overflow = grow ? OverflowAction.Grow : OverflowAction.Block;
        if (grow && !_kind.SupportsGrow)
        {
            Assert.Ignore($"{_kind} does not grow");
        }

        const int producers = 16, perProducer = 50_000;
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 64, overflow, maxBatchSize: 16);

        RunProducers(producers, perProducer, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), discardable: true));

        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        AssertEveryProducerComplete(sink.Events, producers, perProducer);
    }

    [Test]
    public void Batches_AreNeverEmpty_AndEndWithAFlushWhenTheQueueRunsEmpty()
    {
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 512, OverflowAction.Block, maxBatchSize: 64);
        sink.Hold();
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        sink.WaitUntilWorkerIsHeld();
        for (int i = 1; i < 200; i++)
        {
            dispatcher.Enqueue(new TestEvent(0, i), true);
        }

        sink.Open();

        // No Flush or Close call: the flush must come from the worker running out of work.
        sink.WaitUntil(() => sink.Count == 200 && sink.Operations.Last() == "F", "the end-of-batch flush");
        Assert.That(sink.BatchSizes, Has.All.InRange(1, 64));
        Assert.That(sink.BatchSizes.Length, Is.GreaterThan(1), "200 events held behind one batch arrive in several batches of at most 64");
        Assert.That(sink.Events.Select(e => e.Sequence), Is.EqualTo(Enumerable.Range(0, 200)));
    }

    [Test]
    public void Worker_LoggingBackIntoAFullQueue_DiscardsAndCountsInsteadOfDeadlocking()
    {
        const int capacity = 4, fromWorker = 16, fromProducer = 100;
        var sink = new RecordingSink();
        AsyncDispatcher<TestEvent>? dispatcher = null;
        int once = 0;
        sink.OnDeliver = _ =>
        {
            if (Interlocked.Exchange(ref once, 1) == 0)
            {
                for (int i = 0; i < fromWorker; i++)
                {
                    dispatcher!.Enqueue(new TestEvent(1, i), discardable: false); // e.g. a child that logs an error
                }
            }
        };
        dispatcher = Start(sink, capacity, OverflowAction.Block, maxBatchSize: 4);
        Task producer = Task.Run(() =>
        {
            for (int i = 0; i < fromProducer; i++)
            {
                dispatcher.Enqueue(new TestEvent(0, i), true);
            }
        });

        Assert.That(producer.Wait(LongTimeout), Is.True, "the worker kept draining, so producers were not blocked for good");
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(sink.Events.Count(e => e.Producer == 0), Is.EqualTo(fromProducer), "application events are never dropped under Block");
        Assert.That(sink.Events.Count(e => e.Producer == 1) + dispatcher.DiscardedCount, Is.EqualTo(fromWorker));
        Assert.That(dispatcher.DiscardedCount, Is.GreaterThan(0));
        Assert.That(sink.ReportedDiscards, Is.EqualTo(dispatcher.DiscardedCount));
    }

    [TestCase(1)]
    [TestCase(2)]
    [TestCase(3)]
    public void TinyCapacities_StayLossless(int capacity)
    {
        if (_kind.Factory.RequiresPowerOfTwo && (capacity & (capacity - 1)) != 0)
        {
            Assert.Ignore($"{_kind} takes powers of two only");
        }

        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity, OverflowAction.Block, maxBatchSize: 2);
        RunProducers(2, 10_000, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), true));
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        AssertEveryProducerComplete(sink.Events, 2, 10_000);
    }

    [TestCase(0)]
    [TestCase(-5)]
    public void Capacity_MustBePositive(int capacity)
    {
        Assert.That(
            () => new AsyncDispatcher<TestEvent>("bad", _kind.Factory, capacity, new RecordingSink(), OverflowAction.Block, 16, WaitStrategyKind.Blocking),
            Throws.InstanceOf<ArgumentOutOfRangeException>());
    }

    [Test]
    public void Discard_SentEqualsDeliveredPlusDiscarded_AndNonDiscardableEventsAreNeverDropped()
    {
        const int capacity = 16, discardablePerProducer = 20_000, producers = 4, important = 200;
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity, OverflowAction.Discard);
        sink.Hold();
        dispatcher.Enqueue(new TestEvent(99, 0), true);
        sink.WaitUntilWorkerIsHeld();

        // Producer 100 sends events that may not be dropped (WARN and above): it waits for room instead.
        Task<int> importantTask = Task.Run(() =>
        {
            int refused = 0;
            for (int i = 0; i < important; i++)
            {
                refused += dispatcher.Enqueue(new TestEvent(100, i), discardable: false) ? 0 : 1;
            }

            return refused;
        });
        RunProducers(producers, discardablePerProducer, (p, i) =>
        {
            dispatcher.Enqueue(new TestEvent(p, i), discardable: true);
            return true; // discards are expected here
        });
        Assert.That(dispatcher.DiscardedCount, Is.GreaterThan(0), "the held worker forced discards");
        sink.Open();
        Assert.That(importantTask.Wait(LongTimeout), Is.True);
        Assert.That(importantTask.Result, Is.Zero, "no WARN-and-above event was refused");
        Assert.That(dispatcher.Close(LongTimeout), Is.True);

        long sent = 1 + important + producers * discardablePerProducer;
        Assert.That(sink.Count + dispatcher.DiscardedCount, Is.EqualTo(sent));
        Assert.That(sink.Events.Count(e => e.Producer == 100), Is.EqualTo(important));
        Assert.That(sink.Events.Where(e => e.Producer == 100).Select(e => e.Sequence), Is.EqualTo(Enumerable.Range(0, important)));
        Assert.That(sink.ReportedDiscards, Is.EqualTo(dispatcher.DiscardedCount), "every discard was reported once the worker caught up");
        foreach (var group in sink.Events.GroupBy(e => e.Producer))
        {
            int[] sequences = group.Select(e => e.Sequence).ToArray();
            Assert.That(sequences, Is.Ordered.Ascending, $"producer {group.Key} in order, with gaps where events were dropped");
        }
    }

    [Test]
    public void Discard_ReportArrivesBeforeTheEndOfBatchFlush()
    {
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 4, OverflowAction.Discard);
        sink.Hold();
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        sink.WaitUntilWorkerIsHeld();
        int accepted = 1;
        for (int i = 1; i < 100; i++)
        {
            if (dispatcher.Enqueue(new TestEvent(0, i), true))
            {
                accepted++;
            }
        }

        sink.Open();
        sink.WaitUntil(() => sink.Operations.Contains("W" + (100 - accepted)) && sink.Operations.Last() == "F", "the discard report");
        string[] operations = sink.Operations;
        Assert.That(Array.IndexOf(operations, "W" + (100 - accepted)), Is.LessThan(operations.Length - 1));
        Assert.That(dispatcher.DiscardedCount, Is.EqualTo(100 - accepted));
    }

    [Test]
    public void Faults_ASinkThatThrows_IsReportedAndLaterEventsStillFlow()
    {
        var sink = new RecordingSink
        {
            OnDeliver = events =>
            {
                if (events.Any(e => e.Sequence % 10 == 0))
                {
                    throw new InvalidOperationException("child failed on " + events[0]);
                }
            },
        };
        int flushFailures = 0;
        sink.OnFlush = () =>
        {
            if (Interlocked.Increment(ref flushFailures) == 1)
            {
                throw new InvalidOperationException("flush failed");
            }
        };
        var dispatcher = Start(sink, capacity: 64, OverflowAction.Block);
        var results = new List<bool>();
        for (int i = 0; i < 100; i++)
        {
            dispatcher.Enqueue(new TestEvent(0, i), true);
            results.Add(dispatcher.Flush(LongTimeout)); // one event per batch
        }

        Assert.That(results.Count(r => !r), Is.LessThanOrEqualTo(1), "only a flush that met the failing child reports false");
        Assert.That(results.Skip(1), Has.All.True, "the failure does not stick: later flushes reach the child again");
        Assert.That(sink.Count, Is.EqualTo(100));
        Assert.That(sink.Errors.Count(e => e.Contains("child failed")), Is.EqualTo(10));
        Assert.That(sink.Errors, Has.Some.Contains("flush failed"));
        Assert.That(dispatcher.WorkerThread.IsAlive, Is.True);
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
    }

    [Test]
    public void Worker_IsOneNamedBackgroundThread_WithoutTheCallersExecutionContext()
    {
        var local = new AsyncLocal<string>{ Value = "caller's value" };
        string? seen = "not run";
        Thread? worker = null;
        var sink = new RecordingSink
        {
            OnDeliver = _ =>
            {
                seen = local.Value;
                worker = Thread.CurrentThread;
            },
        };
        var dispatcher = Start(sink, capacity: 16, OverflowAction.Block, name: "MyAsyncAppender");
        dispatcher.Enqueue(new TestEvent(0, 0), true);
        Assert.That(dispatcher.Flush(LongTimeout), Is.True);

        Assert.That(worker, Is.SameAs(dispatcher.WorkerThread));
        Assert.That(worker!.Name, Is.EqualTo("MyAsyncAppender"));
        Assert.That(worker.IsBackground, Is.True, "never keeps the process alive");
        Assert.That(seen, Is.Null, "AsyncLocal values of the thread that started the worker do not flow into it");
    }

    [Test]
    public void Worker_WokenEveryTimeAfterParking()
    {
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 16, OverflowAction.Block);
        for (int i = 0; i < 300; i++)
        {
            Assert.That(SpinWait.SpinUntil(() => dispatcher.IsWorkerParked(), LongTimeout), Is.True, "the idle worker parks");
            dispatcher.Enqueue(new TestEvent(0, i), true);
            sink.WaitUntilCount(i + 1);
        }
    }

    [Test]
    public void Grow_BeyondCapacity_KeepsEverythingInOrderWithoutBlocking()
    {
        if (!_kind.SupportsGrow)
        {
            Assert.Ignore($"{_kind} does not grow");
        }

        const int producers = 4, perProducer = 25_000;
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 16, OverflowAction.Grow);
        sink.Hold();
        dispatcher.Enqueue(new TestEvent(99, 0), true);
        sink.WaitUntilWorkerIsHeld();

        // The worker is held for the whole run, so every producer must finish without room being freed.
        RunProducers(producers, perProducer, (p, i) => dispatcher.Enqueue(new TestEvent(p, i), true));
        Assert.That(dispatcher.QueueDepth, Is.EqualTo(producers * perProducer));
        sink.Open();
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        AssertEveryProducerComplete(sink.Events.Where(e => e.Producer != 99).ToArray(), producers, perProducer);
    }

    [Test]
    public void Enqueue_AllocatesNothingOnTheProducerThread()
    {
        const int count = 50_000;
        var sink = new RecordingSink();
        var dispatcher = Start(sink, capacity: 1 << 17, OverflowAction.Block);
        var events = Enumerable.Range(0, 4 * count).Select(i => new TestEvent(0, i)).ToArray();
        for (int i = 0; i < count; i++)
        {
            dispatcher.Enqueue(events[i], true); // warm up: JIT and tiering allocate
        }

        int next = count;
        long allocated = Allocations.LeastOfThreeRounds(() =>
        {
            for (int end = next + count; next < end; next++)
            {
                dispatcher.Enqueue(events[next], true);
            }
        });
        Assert.That(allocated, Is.Zero, $"{allocated} bytes for {count} enqueues");
        Assert.That(dispatcher.Close(LongTimeout), Is.True);
        Assert.That(sink.Count, Is.EqualTo(4 * count));
    }

    private AsyncDispatcher<TestEvent> Start(
        RecordingSink sink, int capacity, OverflowAction overflow, int maxBatchSize = 256, string name = "test")
    {
        var dispatcher = new AsyncDispatcher<TestEvent>(name, _kind.Factory, capacity, sink, overflow, maxBatchSize, WaitStrategyKind.Blocking);
        _created.Add(dispatcher);
        dispatcher.Start();
        return dispatcher;
    }

    /// <summary>
    /// Runs producers on threads of their own. <paramref name="send"/> returns false for a failure; failures are counted
    /// there and asserted here, on the test thread (an assertion on another thread would crash the test host).
    /// </summary>
    private static void RunProducers(int producers, int perProducer, Func<int, int, bool> send, string failure = "Enqueue returned false")
    {
        using var ready = new Barrier(producers);
        var failures = new int[producers];
        var exceptions = new Exception?[producers];
        var threads = Enumerable.Range(0, producers).Select(p => new Thread(() =>
        {
            try
            {
                ready.SignalAndWait();
                for (int i = 0; i < perProducer; i++)
                {
                    if (!send(p, i))
                    {
                        failures[p]++;
                    }
                }
            }
            catch (Exception e)
            {
                exceptions[p] = e;
            }
        })).ToArray();
        foreach (var thread in threads)
        {
            thread.Start();
        }

        foreach (var thread in threads)
        {
            Assert.That(thread.Join(TimeSpan.FromMinutes(2)), Is.True, "producer finished");
        }

        Assert.That(exceptions.Where(e => e != null), Is.Empty, "no producer threw");
        Assert.That(failures, Has.All.Zero, failure);
    }
}
