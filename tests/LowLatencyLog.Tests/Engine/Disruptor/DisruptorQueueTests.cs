using System;
using System.Collections.Generic;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine;
using LowLatencyLog.Runtime;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine.Disruptor;

/// <summary>The ring on its own, driven step by step from the test thread: claims, laps, the published range, close.</summary>
public sealed class DisruptorQueueTests
{
    [TestCase(0)]
    [TestCase(3)]
    [TestCase(1000)]
    public void Capacity_MustBeAPowerOfTwo(int capacity)
    {
        Assert.That(() => new DisruptorQueue<int>(capacity, ProducerType.Multi), Throws.InstanceOf<ArgumentOutOfRangeException>());
        Assert.That(DisruptorQueueFactory.Multi.RequiresPowerOfTwo, Is.True);
        Assert.That(DisruptorQueueFactory.Multi.SupportsGrow, Is.False);
        Assert.That(() => DisruptorQueueFactory.Single.Create<int>(8, grow: true), Throws.ArgumentException);
    }

    [TestCase(false)]
    [TestCase(true)]
    public void Full_AtCapacity_AndFreedByDraining(bool single)
    {
        ProducerType type = single ? ProducerType.Single : ProducerType.Multi;
        var ring = new DisruptorQueue<int>(8, type);
        for (int i = 0; i < 8; i++)
        {
            Assert.That(ring.TryEnqueue(i), Is.EqualTo(EnqueueResult.Enqueued));
        }

        Assert.That(ring.TryEnqueue(8), Is.EqualTo(EnqueueResult.Full), "the ninth position would overwrite the first");
        Assert.That(ring.Count, Is.EqualTo(8));

        var buffer = new int[3];
        Assert.That(ring.Drain(buffer), Is.EqualTo(3));
        Assert.That(ring.LastDrainFreedRoom, Is.True);
        Assert.That(buffer, Is.EqualTo(new[] { 0, 1, 2 }));
        for (int i = 8; i < 11; i++)
        {
            Assert.That(ring.TryEnqueue(i), Is.EqualTo(EnqueueResult.Enqueued), "a freed slot is reused on the next lap");
        }

        Assert.That(ring.TryEnqueue(11), Is.EqualTo(EnqueueResult.Full));
        Assert.That(DrainAll(ring), Is.EqualTo(Enumerable.Range(3, 8)));
        Assert.That(ring.Drain(buffer), Is.Zero);
        Assert.That(ring.LastDrainFreedRoom, Is.False);
    }

    [TestCase(false, 1)]
    [TestCase(false, 8)]
    [TestCase(true, 1)]
    [TestCase(true, 8)]
    public void ManyLaps_KeepOrder_AndLapNumbersNeverCollide(bool single, int capacity)
    {
        ProducerType type = single ? ProducerType.Single : ProducerType.Multi;
        var ring = new DisruptorQueue<int>(capacity, type);
        var buffer = new int[capacity];
        int next = 0, expected = 0;
        for (int lap = 0; lap < 10_000; lap++)
        {
            // Fill a varying part of the ring, then drain it all: positions land on every slot in every lap.
            int fill = 1 + lap % capacity;
            for (int i = 0; i < fill; i++)
            {
                Assert.That(ring.TryEnqueue(next++), Is.EqualTo(EnqueueResult.Enqueued));
            }

            int count = ring.Drain(buffer);
            Assert.That(count, Is.EqualTo(fill), $"lap {lap}");
            for (int i = 0; i < count; i++)
            {
                Assert.That(buffer[i], Is.EqualTo(expected++));
            }
        }

        Assert.That(ring.EnqueuedCount, Is.EqualTo(next));
    }

    [Test]
    public void Drain_StopsAtTheFirstClaimedButUnpublishedPosition()
    {
        var ring = new DisruptorQueue<int>(8, ProducerType.Multi);
        Assert.That(ring.TryEnqueue(10), Is.EqualTo(EnqueueResult.Enqueued)); // position 0
        Assert.That(ring.TryNext(out long slow), Is.EqualTo(EnqueueResult.Enqueued)); // position 1: claimed, still being written
        Assert.That(slow, Is.EqualTo(1));
        Assert.That(ring.TryEnqueue(30), Is.EqualTo(EnqueueResult.Enqueued)); // position 2, published before 1
        Assert.That(ring.TryEnqueue(40), Is.EqualTo(EnqueueResult.Enqueued)); // position 3

        var buffer = new int[8];
        Assert.That(ring.Drain(buffer), Is.EqualTo(1), "only position 0 is contiguous with the worker's sequence");
        Assert.That(buffer[0], Is.EqualTo(10));
        Assert.That(ring.Drain(buffer), Is.Zero, "position 1 is claimed but not published: the range ends there");
        Assert.That(ring.HasPending, Is.True, "but the worker knows something is coming");
        ring.Close();
        Assert.That(ring.HasPending, Is.True, "once closed, too: the worker waits for the claim in flight");
        Assert.That(ring.IsCompleted, Is.False);

        ring.Publish(slow, 20);
        Assert.That(ring.Drain(buffer), Is.EqualTo(3), "the whole published range at once");
        Assert.That(buffer.Take(3), Is.EqualTo(new[] { 20, 30, 40 }));
        Assert.That(ring.HasPending, Is.False);
        Assert.That(ring.IsCompleted, Is.True);
    }

    [Test]
    public void Drain_ALaterLapIsNotMistakenForThisOne()
    {
        var ring = new DisruptorQueue<int>(2, ProducerType.Multi);
        var buffer = new int[2];
        ring.TryEnqueue(0);
        ring.TryEnqueue(1);
        Assert.That(ring.Drain(buffer), Is.EqualTo(2)); // slot 0 now holds lap 0's entry
        Assert.That(ring.TryNext(out long position), Is.EqualTo(EnqueueResult.Enqueued)); // slot 0 again, lap 1, not yet published
        Assert.That(position, Is.EqualTo(2));
        Assert.That(ring.Drain(buffer), Is.Zero, "slot 0's entry still says lap 0");
        ring.Publish(position, 2);
        Assert.That(ring.Drain(buffer), Is.EqualTo(1));
        Assert.That(buffer[0], Is.EqualTo(2));
    }

    [Test]
    public void Drain_ClearsTheSlots_SoNoDeliveredItemIsKeptAlive()
    {
        var ring = new DisruptorQueue<object>(16, ProducerType.Multi);
        WeakReference[] references = EnqueueObjects(ring, 10);
        var buffer = new object[16];
        Assert.That(ring.Drain(buffer), Is.EqualTo(10));
        Array.Clear(buffer, 0, buffer.Length);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Assert.That(references.Count(r => r.IsAlive), Is.Zero);
    }

    [TestCase(false)]
    [TestCase(true)]
    public void Close_RefusesLaterClaims_DrainsEarlierOnes_ThenCompletes(bool single)
    {
        ProducerType type = single ? ProducerType.Single : ProducerType.Multi;
        var ring = new DisruptorQueue<int>(4, type);
        ring.TryEnqueue(1);
        ring.TryEnqueue(2);
        long pending = -1;
        if (type == ProducerType.Multi)
        {
            ring.TryNext(out pending); // claimed before the close, published after it
        }

        ring.Close();
        ring.Close();

        Assert.That(ring.IsClosed, Is.True);
        Assert.That(ring.TryEnqueue(3), Is.EqualTo(EnqueueResult.Closed));
        Assert.That(ring.TryEnqueue(4), Is.EqualTo(EnqueueResult.Closed));
        long claimedBeforeClose = type == ProducerType.Multi ? 3 : 2;
        Assert.That(ring.EnqueuedCount, Is.EqualTo(claimedBeforeClose), "refusals are not counted");
        Assert.That(ring.IsCompleted, Is.False);

        var expected = new List<int> { 1, 2 };
        if (pending >= 0)
        {
            Assert.That(DrainAll(ring), Is.EqualTo(expected));
            Assert.That(ring.IsCompleted, Is.False, "a claim from before the close is still to come");
            ring.Publish(pending, 42);
            expected = new List<int> { 42 };
        }

        Assert.That(DrainAll(ring), Is.EqualTo(expected));
        Assert.That(ring.IsCompleted, Is.True);
        Assert.That(ring.HasPending, Is.False);
        Assert.That(ring.Count, Is.Zero);
    }

    [Test]
    public void Single_OwnerClaimsWithoutHandingOver_ASecondThreadHandsOverAndIsReportedOnce()
    {
        var ring = new DisruptorQueue<int>(64, ProducerType.Single);
        var reports = new List<string>();
        ring.ReportError = message =>
        {
            lock (reports)
            {
                reports.Add(message);
            }
        };

        Assert.That(ring.ClaimIsFullFence, Is.False, "the wait strategy must add the fence");
        for (int i = 0; i < 10; i++)
        {
            Assert.That(ring.TryEnqueue(i), Is.EqualTo(EnqueueResult.Enqueued));
        }

        Assert.That(ring.IsMultiProducer, Is.False);
        Assert.That(reports, Is.Empty);

        EnqueueResult fromOther = EnqueueResult.Full;
        var other = new Thread(() => fromOther = ring.TryEnqueue(100));
        other.Start();
        Assert.That(other.Join(TimeSpan.FromSeconds(30)), Is.True);
        Assert.That(fromOther, Is.EqualTo(EnqueueResult.Enqueued));
        Assert.That(ring.IsMultiProducer, Is.True);

        Assert.That(ring.TryEnqueue(10), Is.EqualTo(EnqueueResult.Enqueued), "the owner goes on, now with the interlocked claim");
        var third = new Thread(() => ring.TryEnqueue(101));
        third.Start();
        Assert.That(third.Join(TimeSpan.FromSeconds(30)), Is.True);

        Assert.That(DrainAll(ring), Is.EqualTo(Enumerable.Range(0, 10).Concat(new[] { 100, 10, 101 })));
        Assert.That(reports, Has.Count.EqualTo(1));
        Assert.That(reports[0], Does.Contain("producerType=Single").And.Contain("producerType=Multi"));
    }

    [Test]
    public void Single_CloseHandsOverQuietly_AndTheOwnerIsRefusedAfterIt()
    {
        var ring = new DisruptorQueue<int>(8, ProducerType.Single);
        string? report = null;
        ring.ReportError = message => report = message;
        ring.TryEnqueue(1);
        ring.Close();
        Assert.That(ring.TryEnqueue(2), Is.EqualTo(EnqueueResult.Closed));
        Assert.That(report, Is.Null, "closing is not a misuse");
        Assert.That(DrainAll(ring), Is.EqualTo(new[] { 1 }));
        Assert.That(ring.IsCompleted, Is.True);
    }

    [Test]
    public void Layout_CursorAndConsumerSequenceSitOnCacheLinesOfTheirOwn()
    {
        int line = CacheLine.Size;
        int cursor = Marshal.OffsetOf<RingSequences>(nameof(RingSequences.Cursor)).ToInt32();
        int cache = Marshal.OffsetOf<RingSequences>(nameof(RingSequences.GatingCache)).ToInt32();
        int busy = Marshal.OffsetOf<RingSequences>(nameof(RingSequences.OwnerBusy)).ToInt32();
        int consumer = Marshal.OffsetOf<RingSequences>(nameof(RingSequences.Consumer)).ToInt32();
        int size = Unsafe.SizeOf<RingSequences>();

        Assert.That(line, Is.GreaterThanOrEqualTo(64));
        Assert.That(cursor, Is.GreaterThanOrEqualTo(line), "a line of padding before the cursor");
        Assert.That(cache / line, Is.EqualTo(cursor / line), "the gating cache is read with the cursor on every claim");
        Assert.That(busy / line, Is.EqualTo(cursor / line), "the owner's flag is written with the cursor");
        Assert.That(consumer / line, Is.GreaterThan(busy / line), "producer fields and the consumer sequence on different lines");
        Assert.That(consumer % line, Is.Zero, "the consumer sequence starts its line");
        Assert.That(size - consumer, Is.GreaterThanOrEqualTo(line), "a line of padding after the consumer sequence");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static WeakReference[] EnqueueObjects(DisruptorQueue<object> ring, int count)
    {
        var references = new WeakReference[count];
        for (int i = 0; i < count; i++)
        {
            var item = new object();
            references[i] = new WeakReference(item);
            ring.TryEnqueue(item);
        }

        return references;
    }

    private static T[] DrainAll<T>(IEventQueue<T> queue)
    {
        var all = new List<T>();
        var buffer = new T[3];
        int n;
        while ((n = queue.Drain(buffer)) > 0)
        {
            all.AddRange(buffer.Take(n));
        }

        return all.ToArray();
    }
}
