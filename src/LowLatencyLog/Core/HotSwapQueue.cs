using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;

namespace LowLatencyLog.Core;

/// <summary>
/// Two buffers: producers append to the active one while the worker drains the other, and the worker swaps them when it
/// has drained its buffer and events are waiting. Producers never wait for the worker except when the active buffer is
/// full.
/// </summary>
/// <remarks>
/// <para>A producer claims an index with an interlocked increment of the active buffer's claim counter (a full fence),
/// copies its item into that slot and publishes it with a release write of the slot's <c>Written</c> flag. Claims at or beyond the capacity fail (full), or with
/// <see cref="OverflowAction.Grow"/> append to the buffer's overflow list under its lock.</para>
/// <para>To swap, the worker (under <c>_swapLock</c>, which only the worker and <see cref="Close"/> take) publishes the
/// standby buffer as active while its counter still reads <see cref="ClosedMark"/>, then opens it by exchanging the counter
/// to 0, and finally closes the old buffer by exchanging its counter to <see cref="ClosedMark"/>. The value that exchange
/// returns is the exact number of claims the old buffer received; any later claim sees a value past
/// <see cref="ClosedMark"/> and retries on the new active buffer. A producer's items therefore go into buffers in the
/// order the worker drains them, and the worker knows exactly how many slots to wait for.</para>
/// </remarks>
internal sealed class HotSwapQueue<T> : IEventQueue<T>
{
    internal const long ClosedMark = 1L << 62;

    private readonly bool _grow;
    private readonly object _swapLock = new object();

    // Producers read this; the worker replaces it under _swapLock.
    private SwapBuffer _active;
    private volatile bool _closed;

    // Worker side.
    private SwapBuffer? _standby;
    private SwapBuffer? _draining;
    private bool _finalBufferTaken;
    private bool _completed;
    private bool _lastDrainFreedRoom;
    private long _swappedOut; // claims of every buffer closed for draining; under _swapLock
    private long _abandoned; // overflow claims written off (no item will come for them), over the queue's life

    /// <summary>Splits <paramref name="capacity"/> between the two buffers, so the queue holds at most that many items.</summary>
    public HotSwapQueue(int capacity, bool grow)
    {
        int first = Math.Max(1, capacity - capacity / 2);
        int second = Math.Max(1, capacity / 2);
        Capacity = first + second;
        _grow = grow;
        _active = new SwapBuffer(first, grow);
        _active.Open();
        _standby = new SwapBuffer(second, grow);
    }

    public int Capacity { get; }

    public bool IsClosed => _closed;

    public bool IsCompleted => _completed;

    public bool ClaimIsFullFence => true;

    public bool LastDrainFreedRoom => _lastDrainFreedRoom;

    public long EnqueuedCount
    {
        get
        {
            // Under the swap lock, so a buffer cannot move from active to swapped out between the two reads.
            lock (_swapLock)
            {
                long claimed = Volatile.Read(ref _active.Claimed);
                long active = claimed >= ClosedMark ? 0 : _grow ? claimed : Math.Min(claimed, _active.Slots.Length);
                return _swappedOut + active - Volatile.Read(ref _abandoned);
            }
        }
    }

    public long Count
    {
        get
        {
            SwapBuffer active = Volatile.Read(ref _active);
            long claimed = Volatile.Read(ref active.Claimed);
            long count = claimed >= ClosedMark ? active.Remaining : _grow ? claimed : Math.Min(claimed, active.Slots.Length);
            SwapBuffer? draining = Volatile.Read(ref _draining);
            return draining == null || draining == active ? count : count + draining.Remaining;
        }
    }

    public bool HasPending
    {
        get
        {
            if (_draining != null)
            {
                return true;
            }

            return _closed ? !_completed : Volatile.Read(ref _active.Claimed) != 0;
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public EnqueueResult TryEnqueue(in T item)
    {
        SwapBuffer buffer = Volatile.Read(ref _active);
        long index = buffer.ClaimAndPublish(item);
        return index < buffer.Slots.Length ? EnqueueResult.Enqueued : EnqueueBeyondCapacity(buffer, index, item);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private EnqueueResult EnqueueBeyondCapacity(SwapBuffer buffer, long index, in T item)
    {
        var spinner = new SpinWait();
        while (true)
        {
            if (index >= ClosedMark)
            {
                if (_closed)
                {
                    return EnqueueResult.Closed;
                }

                spinner.SpinOnce(); // the worker is between the two exchanges of a swap; back off if it was preempted
            }
            else if (_grow)
            {
                try
                {
                    buffer.AddOverflow(item);
                }
                catch (Exception)
                {
                    // Out of memory growing the overflow list: the claim is written off, so the drain does not wait
                    // for an item that never comes; the caller then handles the event as one that found no room.
                    buffer.AbandonOverflowClaim();
                    Interlocked.Increment(ref _abandoned); // not enqueued: flushes must not wait for it
                    return EnqueueResult.Full;
                }

                return EnqueueResult.Enqueued;
            }
            else
            {
                return EnqueueResult.Full;
            }

            buffer = Volatile.Read(ref _active);
            index = buffer.ClaimAndPublish(item);
            if (index < buffer.Slots.Length)
            {
                return EnqueueResult.Enqueued;
            }
        }
    }

    [MethodImpl(Jit.Optimized)]
    public int Drain(T[] output)
    {
        _lastDrainFreedRoom = false;
        int count = 0;
        while (count < output.Length)
        {
            SwapBuffer? draining = _draining;
            if (draining == null)
            {
                if (!TakeNextBuffer())
                {
                    break;
                }

                continue;
            }

            count += draining.Drain(output, count);
            if (!draining.IsExhausted)
            {
                break; // output full, or a producer is still writing a claimed slot
            }

            draining.Recycle();
            Volatile.Write(ref _draining, null);
            _standby = draining;
            if (_finalBufferTaken)
            {
                _completed = true;
                break;
            }
        }

        return count;
    }

    private bool TakeNextBuffer()
    {
        lock (_swapLock)
        {
            SwapBuffer active = _active;
            if (_closed)
            {
                if (_finalBufferTaken)
                {
                    return false;
                }

                _finalBufferTaken = true; // Close already closed the active buffer and fixed its count
                Volatile.Write(ref _draining, active);
                return true;
            }

            if (Volatile.Read(ref active.Claimed) == 0)
            {
                return false;
            }

            SwapBuffer fresh = _standby!;
            _standby = null;
            Volatile.Write(ref _active, fresh);
            fresh.Open();
            _swappedOut += active.CloseForDraining();
            Volatile.Write(ref _draining, active);
            _lastDrainFreedRoom = true; // producers waiting on a full buffer now have a fresh one
            return true;
        }
    }

    public void Close()
    {
        lock (_swapLock)
        {
            if (_closed)
            {
                return;
            }

            _closed = true; // before the exchange below, so a producer that sees the mark also sees this
            _swappedOut += _active.CloseForDraining();
        }
    }

    private sealed class SwapBuffer
    {
        public readonly Slot[] Slots;
        public long Claimed = ClosedMark;

        private readonly object _overflowLock = new object();
        private readonly bool _grow;
        private List<T>? _overflow;
        private long _finalCount = -1;
        private int _taken;

        public SwapBuffer(int capacity, bool grow)
        {
            Slots = Prefault.Touch(new Slot[capacity]);
            if (capacity <= ItemCopy.PrepareLimit)
            {
                for (int i = 0; i < capacity; i++)
                {
                    ItemCopy.Prepare(ref Slots[i].Item);
                }
            }

            _grow = grow;
        }

        /// <summary>Any thread (approximate): claimed when the buffer was closed and not yet taken.</summary>
        public long Remaining
        {
            get
            {
                long final = Volatile.Read(ref _finalCount); // one atomic read, also on 32-bit platforms
                return final < 0 ? 0 : Math.Max(0, final - Volatile.Read(ref _abandoned) - Volatile.Read(ref _taken));
            }
        }

        public bool IsExhausted => _taken == Expected;

        /// <summary>The items to drain: every claim, less the overflow claims whose item could not be stored.</summary>
        private long Expected => _finalCount < 0 ? 0 : _finalCount - Volatile.Read(ref _abandoned);

        private int _abandoned;

        /// <summary>Writes off a claim past the capacity whose item could not be stored (the list could not grow).</summary>
        public void AbandonOverflowClaim() => Interlocked.Increment(ref _abandoned);

        /// <summary>Claims the next index and, if it is inside the buffer, publishes the item there.</summary>
        /// <returns>The index claimed; at or past the capacity nothing was written.</returns>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public long ClaimAndPublish(in T item)
        {
            long index;
            try
            {
            }
            finally
            {
                // In a finally block: .NET Framework defers Thread.Abort there, so a claimed slot is always published.
                index = Interlocked.Increment(ref Claimed) - 1;
                if (index < Slots.Length)
                {
                    ref Slot slot = ref Slots[index];
                    ItemCopy.Copy(ref slot.Item, in item);
                    Volatile.Write(ref slot.Written, 1); // release: the item is visible before the flag
                }
            }

            return index;
        }

        public void Open() => Interlocked.Exchange(ref Claimed, 0);

        /// <returns>The number of items the buffer received, now final.</returns>
        public long CloseForDraining()
        {
            long claims = Interlocked.Exchange(ref Claimed, ClosedMark);

            // Without Grow, claims past the capacity failed (Full) and left nothing to drain.
            long final = _grow ? claims : Math.Min(claims, Slots.Length);
            Volatile.Write(ref _finalCount, final);
            return final;
        }

        public void AddOverflow(in T item)
        {
            // Stored as in a slot: the producer's item may refer to storage of the producer's (a growing queue
            // allocates anyway).
            T stored = default!;
            ItemCopy.Copy(ref stored, in item);
            lock (_overflowLock)
            {
                (_overflow ??= new List<T>()).Add(stored);
            }
        }

        [MethodImpl(Jit.Optimized)]
        public int Drain(T[] output, int offset)
        {
            int capacity = Slots.Length;
            int count = offset;
            while (count < output.Length && _taken < Expected)
            {
                if (_taken < capacity)
                {
                    ref Slot slot = ref Slots[_taken];
                    if (Volatile.Read(ref slot.Written) == 0)
                    {
                        break; // claimed, not yet written
                    }

                    ItemCopy.Take(ref output[count++], ref slot.Item);
                    slot.Written = 0; // published to producers by the full fence of the next Open
                }
                else
                {
                    // One lock per batch, not per item: producers still appending compete for it.
                    int moved = DrainOverflow(output, count);
                    if (moved == 0)
                    {
                        break; // a growing producer claimed past the capacity and has not appended yet
                    }

                    count += moved;
                    Volatile.Write(ref _taken, _taken + moved);
                    continue;
                }

                Volatile.Write(ref _taken, _taken + 1);
            }

            return count - offset;
        }

        private int DrainOverflow(T[] output, int offset)
        {
            lock (_overflowLock)
            {
                int at = _taken - Slots.Length;
                int available = _overflow == null ? 0 : _overflow.Count - at;
                int moved = (int)Math.Min(Math.Min(available, output.Length - offset), Expected - _taken);
                for (int i = 0; i < moved; i++)
                {
                    T item = _overflow![at + i];
                    ItemCopy.Take(ref output[offset + i], ref item);
                    _overflow[at + i] = default!;
                }

                return Math.Max(0, moved);
            }
        }

        public void Recycle()
        {
            lock (_overflowLock)
            {
                _overflow = null;
            }

            Volatile.Write(ref _finalCount, -1);
            Volatile.Write(ref _taken, 0);
            Volatile.Write(ref _abandoned, 0); // every claim of the round was resolved before it was drained
        }

        public struct Slot
        {
            public T Item;
            public int Written;
        }
    }
}
