using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Engine;

/// <summary>
/// Bounded multi-producer, single-consumer queue: a chain of <see cref="QueueSegment{T}"/> rings. With
/// <see cref="OverflowAction.Grow"/> a full ring is sealed and a larger one linked after it, so no producer can write
/// into a ring the worker has left and each producer's items stay in order; otherwise there is only one ring.
/// </summary>
/// <remarks>
/// Producers contend only on the tail of the current ring (one compare-and-swap each); there is no lock, so
/// throughput does not collapse as producers are added the way <c>BlockingCollection</c> does.
/// The capacity is rounded up to a power of two so a position maps to a slot with a mask.
/// </remarks>
internal sealed class BoundedQueue<T> : IEventQueue<T>
{
    private readonly bool _grow;
    private readonly object _growLock = new object();

    // Producer side: the ring new items go to. Replaced only under _growLock.
    private QueueSegment<T> _tail;
    private volatile bool _closed;
    private long _retiredClaims; // claims in the rings sealed for growth; under _growLock

    // Worker side: the ring being drained.
    private QueueSegment<T> _head;
    private bool _lastDrainFreedRoom;

    public BoundedQueue(int capacity, bool grow)
    {
        Capacity = QueueLimits.RoundUpToPowerOfTwo(capacity);
        _grow = grow;
        _tail = _head = new QueueSegment<T>(Capacity);
    }

    public int Capacity { get; }

    public bool IsClosed => _closed;

    public bool ClaimIsFullFence => true;

    public bool LastDrainFreedRoom => _lastDrainFreedRoom;

    public long EnqueuedCount
    {
        get
        {
            // Under the grow lock, so a ring cannot be retired between the two reads.
            lock (_growLock)
            {
                return _retiredClaims + _tail.Claimed;
            }
        }
    }

    public long Count
    {
        get
        {
            long count = 0;
            for (QueueSegment<T>? segment = Volatile.Read(ref _head); segment != null; segment = segment.Next)
            {
                count += segment.Count;
            }

            return count;
        }
    }

    public bool HasPending
    {
        get
        {
            QueueSegment<T> head = _head;
            return head.HasUnconsumed || head.Next != null;
        }
    }

    public bool IsCompleted
    {
        get
        {
            QueueSegment<T> head = _head;
            // Sealed first: after the seal the tail is final, so the other two reads cannot be overtaken.
            return _closed && head.IsSealed && !head.HasUnconsumed && head.Next == null;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public EnqueueResult TryEnqueue(in T item)
    {
        EnqueueResult result = Volatile.Read(ref _tail).TryEnqueue(item);
        if (result == EnqueueResult.Enqueued || !_grow)
        {
            return result;
        }

        return EnqueueGrowing(item);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private EnqueueResult EnqueueGrowing(in T item)
    {
        while (true)
        {
            QueueSegment<T> tail = Volatile.Read(ref _tail);
            EnqueueResult result = tail.TryEnqueue(item);
            if (result == EnqueueResult.Enqueued)
            {
                return result;
            }

            lock (_growLock)
            {
                if (_closed)
                {
                    return EnqueueResult.Closed;
                }

                if (tail != _tail)
                {
                    continue; // another producer grew the queue while we waited
                }

                // Allocate first: an out-of-memory here must leave the ring open, not sealed with no successor.
                var next = new QueueSegment<T>(tail.Capacity >= QueueLimits.MaxSegmentCapacity ? tail.Capacity : tail.Capacity * 2);

                // Seal before linking: once the worker moves past this ring, nobody can still be writing into it.
                tail.Seal();
                _retiredClaims += tail.Claimed;
                tail.Next = next;
                Volatile.Write(ref _tail, next);
                AssertInvariants();
            }
        }
    }

    [MethodImpl(Jit.Optimized)]
    public int Drain(T[] buffer)
    {
        int count = 0;
        while (true)
        {
            QueueSegment<T> head = _head;
            count += head.Drain(buffer, count);
            if (count == buffer.Length || !head.IsSealed || head.HasUnconsumed)
            {
                break;
            }

            QueueSegment<T>? next = head.Next;
            if (next == null)
            {
                break;
            }

            Volatile.Write(ref _head, next);
        }

        _lastDrainFreedRoom = count > 0; // every slot drained is free for the next lap
        AssertInvariants();
        return count;
    }

    public void Close()
    {
        lock (_growLock)
        {
            _closed = true;
            _tail.Seal();
            AssertInvariants();
        }
    }

    /// <summary>Debug builds only (it compiles away in Release); any thread (it takes the grow lock).</summary>
    /// <remarks>
    /// Checks the chain of rings: from the worker's head ring the links lead to the producers' tail ring; every ring
    /// before the tail is sealed (no producer can still write into a ring the worker may leave) and linked, the tail is
    /// sealed exactly when the queue is closed, and only a growing queue has more than one ring; each ring is at least
    /// as large as the one before it; the claims counted as retired cover at least the sealed rings still in the
    /// chain; and in each ring the head never passes the claims (<see cref="QueueSegment{T}.AssertInvariants"/>).
    /// </remarks>
    [Conditional("DEBUG")]
    internal void AssertInvariants()
    {
        lock (_growLock)
        {
            QueueSegment<T> tail = _tail;
            QueueSegment<T> segment = Volatile.Read(ref _head);
            long sealedClaims = 0;
            while (segment != tail)
            {
                QueueSegment<T>? next = segment.Next;
                Debug.Assert(_grow, "BoundedQueue: only a growing queue links a second ring");
                Debug.Assert(segment.IsSealed, "BoundedQueue: every ring before the tail is sealed");
                Debug.Assert(next != null, "BoundedQueue: the rings link up to the tail");
                Debug.Assert(next!.Capacity >= segment.Capacity, "BoundedQueue: a ring is at least as large as the one before");
                segment.AssertInvariants();
                sealedClaims += segment.Claimed;
                segment = next;
            }

            Debug.Assert(tail.Next == null, "BoundedQueue: nothing follows the tail");
            Debug.Assert(tail.IsSealed == _closed, "BoundedQueue: the tail is sealed exactly when the queue is closed");
            Debug.Assert(sealedClaims <= _retiredClaims, "BoundedQueue: the retired claims cover the sealed rings");
            tail.AssertInvariants();
        }
    }
}

internal static class QueueLimits
{
    /// <summary>A growing queue stops doubling its segments here.</summary>
    internal const int MaxSegmentCapacity = 1 << 20;

    /// <summary>At least 2: with one slot, "published for position p" and "free for p + 1" are the same sequence.</summary>
    internal static int RoundUpToPowerOfTwo(int value)
    {
        int result = 2;
        while (result < value && result < (1 << 30))
        {
            result <<= 1;
        }

        return result;
    }
}
