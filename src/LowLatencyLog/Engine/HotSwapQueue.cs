using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Engine;

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
internal sealed partial class HotSwapQueue<T> : IEventQueue<T>
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

        AssertInvariants();
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
            // Opened before it is published: a producer that finds it active must never find it still closed, or it
            // would spin until this thread runs again (a whole time slice if it is preempted here).
            fresh.Open();
            Volatile.Write(ref _active, fresh);
            _swappedOut += active.CloseForDraining();
            Volatile.Write(ref _draining, active);
            _lastDrainFreedRoom = true; // producers waiting on a full buffer now have a fresh one
            AssertInvariants();
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
            Debug.Assert(Volatile.Read(ref _active.Claimed) >= ClosedMark, "HotSwapQueue: a closed queue's active buffer refuses claims");
        }
    }

    /// <summary>Debug builds only (it compiles away in Release); worker only (it takes the swap lock against
    /// <see cref="Close"/>), after a swap and after a drain.</summary>
    /// <remarks>
    /// Checks the two buffers' roles: while the queue is open the active buffer accepts claims and holds no drain
    /// state, and the other buffer is exactly one of standby (recycled: refuses claims, nothing left in it) or draining
    /// (closed with its count fixed, taken no further than that count, and within its capacity unless it grows); the
    /// two capacities add up to the queue's. After a close the active buffer refuses claims; once the worker has
    /// taken it, it is the one draining; a completed queue drains nothing and its last buffer is recycled.
    /// </remarks>
    [Conditional("DEBUG")]
    internal void AssertInvariants()
    {
        lock (_swapLock)
        {
            SwapBuffer active = _active;
            SwapBuffer? draining = _draining;
            SwapBuffer? standby = _standby;
            Debug.Assert(!_finalBufferTaken || _closed, "HotSwapQueue: the final buffer is taken only after a close");
            Debug.Assert(!_completed || (_finalBufferTaken && draining == null), "HotSwapQueue: complete only once the final buffer is drained");
            draining?.AssertClosedForDraining(_grow);
            if (_completed)
            {
                Debug.Assert(standby == active, "HotSwapQueue: the last buffer drained is the standby");
                standby!.AssertRecycled();
                return;
            }

            if (_finalBufferTaken)
            {
                Debug.Assert(draining == active, "HotSwapQueue: after the close the worker drains the active buffer");
                Debug.Assert(standby != null && standby != active, "HotSwapQueue: the other buffer is standby");
                standby!.AssertRecycled();
                return;
            }

            Debug.Assert((draining == null) != (standby == null), "HotSwapQueue: the other buffer is standby or draining, not both");
            SwapBuffer? other = draining ?? standby;
            Debug.Assert(other != null && other != active, "HotSwapQueue: two distinct buffers");
            Debug.Assert(active.Slots.Length + other!.Slots.Length == Capacity, "HotSwapQueue: the two buffers hold the capacity");
            standby?.AssertRecycled();
            if (_closed)
            {
                active.AssertClosedForDraining(_grow);
            }
            else
            {
                active.AssertOpen();
            }
        }
    }
}
