using System.Linq;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using LowLatencyLog.Engine;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine;

public sealed class BoundedQueueTests
{
    [TestCase(1, 2)]
    [TestCase(2, 2)]
    [TestCase(1000, 1024)]
    [TestCase(1024, 1024)]
    [TestCase(1025, 2048)]
    public void Capacity_IsRoundedUpToAPowerOfTwo(int requested, int expected)
    {
        Assert.That(new BoundedQueue<int>(requested, grow: false).Capacity, Is.EqualTo(expected));
    }

    [Test]
    public void CapacityOne_HoldsTwoSlots_AndNeverOverwrites()
    {
        var queue = new BoundedQueue<int>(1, grow: false);
        Assert.That(queue.TryEnqueue(10), Is.EqualTo(EnqueueResult.Enqueued));
        Assert.That(queue.TryEnqueue(20), Is.EqualTo(EnqueueResult.Enqueued));
        Assert.That(queue.TryEnqueue(30), Is.EqualTo(EnqueueResult.Full));
        Assert.That(DrainAll(queue), Is.EqualTo(new[] { 10, 20 }));
    }

    [Test]
    public void Full_AtCapacity_AndFreedByDraining()
    {
        var queue = new BoundedQueue<int>(8, grow: false);
        for (int i = 0; i < 8; i++)
        {
            Assert.That(queue.TryEnqueue(i), Is.EqualTo(EnqueueResult.Enqueued));
        }

        Assert.That(queue.TryEnqueue(8), Is.EqualTo(EnqueueResult.Full));
        Assert.That(queue.Count, Is.EqualTo(8));

        var buffer = new int[3];
        Assert.That(queue.Drain(buffer), Is.EqualTo(3));
        Assert.That(buffer, Is.EqualTo(new[] { 0, 1, 2 }));
        for (int i = 8; i < 11; i++)
        {
            Assert.That(queue.TryEnqueue(i), Is.EqualTo(EnqueueResult.Enqueued), "a freed slot is reused on the next lap");
        }

        Assert.That(queue.TryEnqueue(11), Is.EqualTo(EnqueueResult.Full));
        Assert.That(DrainAll(queue), Is.EqualTo(Enumerable.Range(3, 8)));
    }

    [Test]
    public void Close_RefusesNewItems_DrainsClaimedOnes_ThenCompletes()
    {
        var queue = new BoundedQueue<string>(4, grow: false);
        queue.TryEnqueue("a");
        queue.TryEnqueue("b");
        Assert.That(queue.HasPending, Is.True);
        queue.Close();
        queue.Close();

        Assert.That(queue.IsClosed, Is.True);
        Assert.That(queue.TryEnqueue("c"), Is.EqualTo(EnqueueResult.Closed));
        Assert.That(queue.IsCompleted, Is.False, "two items still to drain");
        Assert.That(DrainAll(queue), Is.EqualTo(new[] { "a", "b" }));
        Assert.That(queue.IsCompleted, Is.True);
        Assert.That(queue.HasPending, Is.False);
    }

    [Test]
    public void Grow_LinksLargerSegmentsAndKeepsOrder()
    {
        var queue = new BoundedQueue<int>(4, grow: true);
        for (int i = 0; i < 1000; i++)
        {
            Assert.That(queue.TryEnqueue(i), Is.EqualTo(EnqueueResult.Enqueued));
        }

        Assert.That(queue.Count, Is.EqualTo(1000));
        Assert.That(DrainAll(queue), Is.EqualTo(Enumerable.Range(0, 1000)));
        queue.Close();
        Assert.That(queue.TryEnqueue(1), Is.EqualTo(EnqueueResult.Closed));
        Assert.That(queue.IsCompleted, Is.True);
    }

    [Test]
    public void Positions_TailAndHeadSitOnCacheLinesOfTheirOwn()
    {
        int line = QueuePositions.CacheLine;
        int tail = Marshal.OffsetOf<QueuePositions>(nameof(QueuePositions.Tail)).ToInt32();
        int head = Marshal.OffsetOf<QueuePositions>(nameof(QueuePositions.Head)).ToInt32();
        int size = Unsafe.SizeOf<QueuePositions>();

        Assert.That(tail, Is.GreaterThanOrEqualTo(line), "padding before the tail");
        Assert.That(head - tail, Is.GreaterThanOrEqualTo(line), "tail and head apart");
        Assert.That(size - head, Is.GreaterThanOrEqualTo(line), "padding after the head");
        Assert.That(line, Is.GreaterThanOrEqualTo(64));
    }

    private static T[] DrainAll<T>(IEventQueue<T> queue)
    {
        var all = new System.Collections.Generic.List<T>();
        var buffer = new T[5];
        int n;
        while ((n = queue.Drain(buffer)) > 0)
        {
            all.AddRange(buffer.Take(n));
        }

        return all.ToArray();
    }
}
