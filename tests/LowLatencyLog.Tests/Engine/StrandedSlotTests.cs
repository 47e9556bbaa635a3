using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading.Tasks;
using LowLatencyLog.Engine;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine.Waiting;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine;

/// <summary>
/// A store that throws between a slot's claim and its publication (out of memory) must leave no slot claimed for good:
/// the worker skips it, later events are delivered, flushes and the close finish. Each queue, each claim.
/// </summary>
[TestFixtureSource(nameof(Queues))]
public sealed class StrandedSlotTests
{
    private const int Capacity = 8;
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(30);

    private readonly IQueueFactory _factory;

    public StrandedSlotTests(string name, object factory)
    {
        _ = name;
        _factory = (IQueueFactory)factory;
    }

    public static IEnumerable<TestFixtureData> Queues()
    {
        yield return new TestFixtureData("BoundedQueue", BoundedQueueFactory.Instance).SetArgDisplayNames("BoundedQueue");
        yield return new TestFixtureData("HotSwapQueue", HotSwapQueueFactory.Instance).SetArgDisplayNames("HotSwapQueue");
        yield return new TestFixtureData("DisruptorMulti", DisruptorQueueFactory.Multi).SetArgDisplayNames("DisruptorMulti");
        yield return new TestFixtureData("DisruptorSingle", DisruptorQueueFactory.Single).SetArgDisplayNames("DisruptorSingle");
    }

    [Test]
    public void AStoreThatThrows_TheNextEventsAreDelivered_FlushAndCloseFinish()
    {
        var sink = new FragileSink();
        var dispatcher = new AsyncDispatcher<Fragile>("stranded", _factory, Capacity, sink, OverflowAction.Block, 4, WaitStrategyKind.Blocking);
        dispatcher.Start();

        // Run off the test thread: before the fix a claimed, unpublished slot held the worker (and a Single ring's
        // owner flag) for good, so waits must be bounded here.
        var run = Task.Run(() =>
        {
            var thrown = new List<Exception>();
            for (int i = 1; i <= 5 * Capacity; i++)
            {
                try
                {
                    dispatcher.Enqueue(new Fragile(i, fails: Fails(i)), discardable: false);
                }
                catch (InsufficientMemoryException e)
                {
                    thrown.Add(e);
                }
            }

            bool flushed = dispatcher.Flush((int)Bound.TotalMilliseconds);
            bool closed = dispatcher.Close((int)Bound.TotalMilliseconds);
            return (thrown.Count, flushed, closed);
        });

        Assert.That(run.Wait(Bound + Bound + Bound), Is.True, "the producer, the flush or the close never finished");
        var (thrownCount, flushed, closed) = run.Result;
        int[] expected = Enumerable.Range(1, 5 * Capacity).Where(i => !Fails(i)).ToArray();
        Assert.That(thrownCount, Is.EqualTo(5 * Capacity - expected.Length), "each failed store reaches the caller");
        Assert.That(flushed, Is.True);
        Assert.That(closed, Is.True);
        Assert.That(sink.Values, Is.EqualTo(expected), "every other event delivered once, in order; no mark delivered");
        Assert.That(dispatcher.DeliveredCount, Is.EqualTo(expected.Length));

        // The counters add up: a failed store is not accepted (its call got the exception, and the caller counts it).
        Assert.That(dispatcher.AcceptedCount, Is.EqualTo(dispatcher.DeliveredCount + dispatcher.UndeliveredCount), "accepted = delivered + undelivered");
        Assert.That(dispatcher.AcceptedCount + thrownCount, Is.EqualTo(5 * Capacity), "sent = accepted + failed");
    }

    // Some in the middle, and the last one before the flush and close.
    private static bool Fails(int i) => i % 7 == 3 || i == 5 * Capacity;

    private readonly struct Fragile : ISlotItem<Fragile>
    {
        public readonly int Value;
        public readonly bool Fails;
        public readonly bool Skipped;

        public Fragile(int value, bool fails, bool skipped = false)
        {
            Value = value;
            Fails = fails;
            Skipped = skipped;
        }

        SlotStorage<Fragile> ISlotItem<Fragile>.Storage => FragileStorage.Instance;
    }

    private sealed class FragileStorage : SlotStorage<Fragile>
    {
        public static readonly FragileStorage Instance = new FragileStorage();

        public override void Store(ref Fragile destination, in Fragile source)
        {
            if (source.Fails)
            {
                destination = new Fragile(-source.Value, fails: false); // half written, as an interrupted copy leaves it
                throw new InsufficientMemoryException("injected: the store ran out of memory");
            }

            destination = source;
        }

        public override void Take(ref Fragile destination, ref Fragile slot)
        {
            destination = slot;
            slot = default;
        }

        public override object AllocateArena(int count) => new object();

        public override void Prepare(ref Fragile slot, object arena, int index)
        {
        }

        public override void ClearDelivered(ref Fragile item) => item = default;

        public override void Skip(ref Fragile slot) => slot = new Fragile(0, fails: false, skipped: true);

        public override bool IsSkipped(in Fragile item) => item.Skipped;
    }

    private sealed class FragileSink : IBatchSink<Fragile>
    {
        private readonly List<int> _values = new List<int>();

        public int[] Values
        {
            get
            {
                lock (_values)
                {
                    return _values.ToArray();
                }
            }
        }

        public void Deliver(Fragile[] items, int count)
        {
            lock (_values)
            {
                for (int i = 0; i < count; i++)
                {
                    _values.Add(items[i].Skipped ? int.MinValue : items[i].Value);
                }
            }
        }

        public bool Flush(int timeoutMilliseconds) => true;

        public void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded)
        {
        }

        public void Close()
        {
        }

        public void ReportError(string message, Exception? exception)
        {
        }
    }
}
