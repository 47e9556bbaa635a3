using System.Linq;
using System.Reflection;
using System.Threading;
using LowLatencyLog.Engine;
using LowLatencyLog.Engine.Disruptor;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine.Disruptor;

/// <summary>
/// A producerType=Single ring handed over to the multi-producer claim while its owner is inside a claim: a third
/// thread that arrives meanwhile must not claim before the owner is out (the owner's plain cursor store would let both
/// take the same position, and one event would overwrite the other).
/// </summary>
public sealed class SingleProducerHandOverTests
{
    private static readonly ManualResetEventSlim Entered = new ManualResetEventSlim(false);
    private static readonly ManualResetEventSlim Gate = new ManualResetEventSlim(false);

    [Test]
    public void AThirdThreadDuringTheHandOver_WaitsForTheOwner_AndNoEventIsLost()
    {
        Entered.Reset();
        Gate.Reset();
        var ring = new DisruptorQueue<Gated>(8, ProducerType.Single) { ReportError = _ => { } };

        // The owner stops inside its claim: in the store of its item, after it read the cursor.
        var owner = new Thread(() => ring.TryEnqueue(new Gated(1, stops: true)));
        owner.Start();
        Assert.That(Entered.Wait(30_000), Is.True);

        // A second thread starts the hand-over and waits for the owner to leave its claim.
        var second = new Thread(() => ring.TryEnqueue(new Gated(2, stops: false)));
        second.Start();
        Assert.That(SpinWait.SpinUntil(() => ModeOf(ring) != DisruptorQueue<Gated>.SingleMode, 30_000), Is.True);

        // A third thread arrives during the hand-over: it must wait too, not claim the owner's position.
        var third = new Thread(() => ring.TryEnqueue(new Gated(3, stops: false)));
        third.Start();
        Assert.That(SpinWait.SpinUntil(() => !third.IsAlive || (third.ThreadState & ThreadState.WaitSleepJoin) != 0, 30_000), Is.True);

        Gate.Set();
        Assert.That(owner.Join(30_000) && second.Join(30_000) && third.Join(30_000), Is.True);

        var drained = new Gated[8];
        int count = ring.Drain(drained);
        Assert.That(drained.Take(count).Select(g => g.Value).OrderBy(v => v).ToArray(), Is.EqualTo(new[] { 1, 2, 3 }), "every event once");
        Assert.That(ring.IsMultiProducer, Is.True);
    }

    private static int ModeOf(DisruptorQueue<Gated> ring)
    {
        FieldInfo sequences = typeof(DisruptorQueue<Gated>).GetField("_seq", BindingFlags.Instance | BindingFlags.NonPublic)!;
        return ((RingSequences)sequences.GetValue(ring)!).Mode;
    }

    private readonly struct Gated : ISlotItem<Gated>
    {
        public readonly int Value;
        public readonly bool Stops;

        public Gated(int value, bool stops)
        {
            Value = value;
            Stops = stops;
        }

        SlotStorage<Gated> ISlotItem<Gated>.Storage => GatedStorage.Instance;
    }

    private sealed class GatedStorage : SlotStorage<Gated>
    {
        public static readonly GatedStorage Instance = new GatedStorage();

        public override void Store(ref Gated destination, in Gated source)
        {
            if (source.Stops)
            {
                Entered.Set();
                Gate.Wait(30_000);
            }

            destination = source;
        }

        public override void Take(ref Gated destination, ref Gated slot)
        {
            destination = slot;
            slot = default;
        }

        public override object AllocateArena(int count) => new object();

        public override void Prepare(ref Gated slot, object arena, int index)
        {
        }

        public override void ClearDelivered(ref Gated item) => item = default;

        public override void Skip(ref Gated slot) => slot = default;

        public override bool IsSkipped(in Gated item) => false;
    }
}
