using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Engine;

/// <summary>
/// One fixed-size ring of <see cref="BoundedQueue{T}"/>: Dmitry Vyukov's bounded MPMC queue, consumed by one thread.
/// </summary>
/// <remarks>
/// Every slot carries a sequence number. For the position <c>p</c> that maps to a slot:
/// <c>sequence == p</c> means the slot is free for the producer that claims <c>p</c>;
/// <c>sequence == p + 1</c> means the item for <c>p</c> is published and the worker may take it;
/// the worker then sets <c>sequence = p + capacity</c>, freeing the slot for the next lap.
/// Producers claim <c>p</c> by a compare-and-swap of the tail from <c>p</c> to <c>p + 1</c> (a full fence), write the
/// item, then publish with a release write of the sequence. The worker reads the sequence with an acquire read before it
/// reads the item. A producer that finds <c>sequence &lt; p</c> sees the item from one lap ago still there: the ring is full.
/// <para>
/// Sealing sets <see cref="SealedBit"/> in the tail. A sealed tail never equals a slot's sequence, so no producer can
/// claim again, and the positions claimed before the seal are exactly those below the unsealed tail. The queue uses the
/// seal both to close and to retire a full segment when it grows.
/// </para>
/// </remarks>
internal sealed class QueueSegment<T>
{
    internal const long SealedBit = QueuePositions.SealedBit;

    private readonly Slot[] _slots;
    private readonly int _mask;
    private QueuePositions _positions;
    private QueueSegment<T>? _next;

    public QueueSegment(int capacity)
    {
        _slots = new Slot[capacity];
        _mask = capacity - 1;
        object? arena = ItemCopy.Arena<T>(capacity);
        for (int i = 0; i < capacity; i++)
        {
            _slots[i].Sequence = i;
            ItemCopy.Prepare(ref _slots[i].Item, arena, i);
        }
    }

    public int Capacity => _slots.Length;

    /// <summary>The segment that follows this one once it was sealed for growth; written once, under the grow lock.</summary>
    public QueueSegment<T>? Next
    {
        get => Volatile.Read(ref _next);
        set => Volatile.Write(ref _next, value);
    }

    public bool IsSealed => (Volatile.Read(ref _positions.Tail) & SealedBit) != 0;

    /// <summary>Positions claimed so far; final once the segment is sealed.</summary>
    public long Claimed => Volatile.Read(ref _positions.Tail) & ~SealedBit;

    /// <summary>Claimed positions not yet drained (some may still be being written).</summary>
    public long Count => (Volatile.Read(ref _positions.Tail) & ~SealedBit) - Volatile.Read(ref _positions.Head);

    /// <summary>Worker only: a producer has claimed a position the worker has not taken.</summary>
    public bool HasUnconsumed => (Volatile.Read(ref _positions.Tail) & ~SealedBit) != _positions.Head;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public EnqueueResult TryEnqueue(in T item)
    {
        Slot[] slots = _slots;
        long tail = Volatile.Read(ref _positions.Tail);
        while (true)
        {
            ref Slot slot = ref slots[(int)tail & _mask];
            long sequence = Volatile.Read(ref slot.Sequence);
            if (sequence == tail)
            {
                long observed;
                try
                {
                }
                finally
                {
                    // Claim and publish in a finally block: .NET Framework defers Thread.Abort there, so a slot is
                    // never left claimed but unpublished (which would stall the worker for good).
                    observed = Interlocked.CompareExchange(ref _positions.Tail, tail + 1, tail);
                    if (observed == tail)
                    {
                        try
                        {
                            ItemCopy.Copy(ref slot.Item, in item);
                        }
                        catch
                        {
                            // The store threw (out of memory): publish a mark the worker drops, then let it propagate.
                            ItemCopy.Skip(ref slot.Item);
                            Volatile.Write(ref slot.Sequence, tail + 1);
                            throw;
                        }

                        // Release: the item is visible before the worker can see the new sequence.
                        Volatile.Write(ref slot.Sequence, tail + 1);
                    }
                }

                if (observed == tail)
                {
                    AssertInvariants();
                    return EnqueueResult.Enqueued;
                }

                tail = observed;
            }
            else if (sequence < tail)
            {
                // Full or sealed, unless another producer moved the tail meanwhile.
                long current = Volatile.Read(ref _positions.Tail);
                if (current == tail)
                {
                    return (tail & SealedBit) != 0 ? EnqueueResult.Closed : EnqueueResult.Full;
                }

                tail = current;
            }
            else
            {
                // Another producer claimed this position already; our tail is stale.
                tail = Volatile.Read(ref _positions.Tail);
            }
        }
    }

    /// <summary>Any thread, idempotent: no position can be claimed after this returns.</summary>
    public void Seal()
    {
        long tail = Volatile.Read(ref _positions.Tail);
        while ((tail & SealedBit) == 0)
        {
            long observed = Interlocked.CompareExchange(ref _positions.Tail, tail | SealedBit, tail);
            if (observed == tail)
            {
                AssertInvariants();
                return;
            }

            tail = observed;
        }
    }

    /// <summary>Worker only: takes published items in order into <paramref name="buffer"/> from <paramref name="offset"/>.</summary>
    [MethodImpl(Jit.Optimized)]
    public int Drain(T[] buffer, int offset)
    {
        Slot[] slots = _slots;
        long head = _positions.Head;
        int count = offset;
        while (count < buffer.Length)
        {
            ref Slot slot = ref slots[(int)head & _mask];
            if (Volatile.Read(ref slot.Sequence) != head + 1)
            {
                break;
            }

            ItemCopy.Take(ref buffer[count++], ref slot.Item);
            Volatile.Write(ref slot.Sequence, head + slots.Length);
            head++;
        }

        Volatile.Write(ref _positions.Head, head);
        AssertInvariants();
        AssertDrained(head);
        return count - offset;
    }

    /// <summary>Debug builds only (it compiles away in Release); any thread: after a claim, a seal or a drain.</summary>
    /// <remarks>
    /// Checks the order of the two positions: the worker's head never passes the claims (it takes only what a
    /// producer claimed). The head is read before the tail, so the check holds whichever threads move them meanwhile:
    /// both only grow. (How far the claims may run ahead depends on where the worker is in a drain: it frees each slot
    /// before it publishes the new head; <see cref="AssertDrained"/> checks that bound on the worker.)
    /// </remarks>
    [Conditional("DEBUG")]
    internal void AssertInvariants()
    {
        long head = Volatile.Read(ref _positions.Head);
        Debug.Assert(head >= 0 && head <= Claimed, "QueueSegment: the head never passes the claims");
    }

    /// <summary>Debug builds only; worker only, after a drain that left the head at <paramref name="head"/>.</summary>
    /// <remarks>
    /// Checks the count: the claims run at most one lap (the capacity) ahead of the head, since a producer claims a
    /// position only once its slot's previous occupant was taken, and every slot taken so far is below the head. And
    /// the sequence ordering of the next slots (up to 64): the slot for a position <c>p</c> at or past the head holds
    /// <c>p</c> (free, or claimed and being written) or <c>p + 1</c> (published), never anything else; the slot just
    /// taken holds its next lap's position (free), or one more (a producer already published there).
    /// </remarks>
    [Conditional("DEBUG")]
    private void AssertDrained(long head)
    {
        Slot[] slots = _slots;
        Debug.Assert(Claimed - head <= slots.Length, "QueueSegment: claims run at most one lap ahead of the head");
        long end = head + Math.Min(slots.Length, 64);
        for (long p = head; p < end; p++)
        {
            long sequence = Volatile.Read(ref slots[(int)p & _mask].Sequence);
            Debug.Assert(sequence == p || sequence == p + 1, "QueueSegment: a slot ahead of the head holds its position or the next");
        }

        if (head > 0)
        {
            long next = head - 1 + slots.Length;
            long sequence = Volatile.Read(ref slots[(int)(head - 1) & _mask].Sequence);
            Debug.Assert(sequence == next || sequence == next + 1, "QueueSegment: a slot taken holds its next lap's position");
        }
    }

    private struct Slot
    {
        public T Item;
        public long Sequence;
    }
}

/// <summary>
/// The tail (written by every producer) and the head (written by the worker) each on a cache line of its own, with a
/// line of padding on either side so neither shares a line with the segment's other fields or with each other.
/// Checked by a layout test.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 3 * CacheLine)]
internal struct QueuePositions
{
    internal const int CacheLine = Runtime.CacheLine.Size;
    internal const long SealedBit = 1L << 62;

    /// <summary>Next position to claim; producers only (plus the seal).</summary>
    [FieldOffset(CacheLine)]
    public long Tail;

    /// <summary>Next position to drain; the worker only.</summary>
    [FieldOffset(2 * CacheLine)]
    public long Head;
}
