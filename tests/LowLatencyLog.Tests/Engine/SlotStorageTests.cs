using System.Threading;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine;

/// <summary>The engine holds items by the rules their own type names (<see cref="ISlotItem{T}"/>), or by assignment.</summary>
public sealed class SlotStorageTests
{
    [Test]
    public void EachItemType_HasTheStorageItNames()
    {
        Assert.That(SlotStorage<int>.OfItem, Is.Null);
        Assert.That(SlotStorage<string>.OfItem, Is.Null);
        Assert.That(SlotStorage<CapturedEvent>.OfItem, Is.SameAs(CapturedEventStorage.Instance));
        Assert.That(SlotStorage<Counted>.OfItem, Is.SameAs(CountingStorage.Instance));
    }

    [TestCase("bounded")]
    [TestCase("hotswap")]
    [TestCase("disruptor")]
    public void EveryQueue_StoresTakesAndPreparesThroughTheItemsRules(string kind)
    {
        CountingStorage.Instance.Reset();
        IEventQueue<Counted> queue = kind switch
        {
            "bounded" => new BoundedQueue<Counted>(8, grow: false),
            "hotswap" => new HotSwapQueue<Counted>(8, grow: false),
            _ => new DisruptorQueue<Counted>(8, ProducerType.Multi),
        };
        int prepared = CountingStorage.Instance.Prepared;
        int arenas = CountingStorage.Instance.Arenas;

        for (int i = 1; i <= 4; i++)
        {
            Assert.That(queue.TryEnqueue(new Counted(i)), Is.EqualTo(EnqueueResult.Enqueued));
        }

        var batch = new Counted[8];
        int count = queue.Drain(batch);
        ItemCopy.ClearDelivered(batch, count);

        Assert.That(prepared, Is.EqualTo(8), "slots prepared when the queue is made");
        Assert.That(arenas, Is.EqualTo(kind == "hotswap" ? 2 : 1), "one arena per buffer of slots, none per slot");
        Assert.That(count, Is.EqualTo(4));
        Assert.That(CountingStorage.Instance.Stored, Is.EqualTo(4));
        Assert.That(CountingStorage.Instance.Taken, Is.EqualTo(4));
        Assert.That(CountingStorage.Instance.Cleared, Is.EqualTo(4));
    }

    private readonly struct Counted : ISlotItem<Counted>
    {
        public readonly int Value;

        public Counted(int value) => Value = value;

        SlotStorage<Counted> ISlotItem<Counted>.Storage => CountingStorage.Instance;
    }

    private sealed class CountingStorage : SlotStorage<Counted>
    {
        public static readonly CountingStorage Instance = new CountingStorage();
        public int Stored;
        public int Taken;
        public int Prepared;
        public int Cleared;
        public int Arenas;

        public void Reset() => Stored = Taken = Prepared = Cleared = Arenas = 0;

        public override void Store(ref Counted destination, in Counted source)
        {
            Interlocked.Increment(ref Stored);
            destination = source;
        }

        public override void Take(ref Counted destination, ref Counted slot)
        {
            Taken++;
            destination = slot;
            slot = default;
        }

        public override object AllocateArena(int count)
        {
            Arenas++;
            return new object();
        }

        public override void Prepare(ref Counted slot, object arena, int index) => Prepared++;

        public override void ClearDelivered(ref Counted item)
        {
            Cleared++;
            item = default;
        }

        public override void Skip(ref Counted slot) => slot = default;

        public override bool IsSkipped(in Counted item) => false;
    }
}
