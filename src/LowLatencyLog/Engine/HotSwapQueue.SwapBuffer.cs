using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Engine;

// HotSwapQueue, continued: one of its two buffers.
internal sealed partial class HotSwapQueue<T>
{
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
            object? arena = ItemCopy.Arena<T>(capacity);
            for (int i = 0; arena != null && i < capacity; i++)
            {
                ItemCopy.Prepare(ref Slots[i].Item, arena, i);
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
                    try
                    {
                        ItemCopy.Copy(ref slot.Item, in item);
                    }
                    catch
                    {
                        // The store threw (out of memory): publish a mark the worker drops, then let it propagate.
                        ItemCopy.Skip(ref slot.Item);
                        Volatile.Write(ref slot.Written, 1);
                        throw;
                    }

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

        /// <summary>Debug builds only, worker side: the active buffer of an open queue.</summary>
        [Conditional("DEBUG")]
        public void AssertOpen()
        {
            Debug.Assert(Volatile.Read(ref Claimed) < ClosedMark, "SwapBuffer: the active buffer accepts claims");
            Debug.Assert(Volatile.Read(ref _finalCount) == -1 && _taken == 0, "SwapBuffer: an open buffer has no drain state");
        }

        /// <summary>Debug builds only, worker side: a buffer closed for draining.</summary>
        [Conditional("DEBUG")]
        public void AssertClosedForDraining(bool grow)
        {
            long final = Volatile.Read(ref _finalCount);
            Debug.Assert(Volatile.Read(ref Claimed) >= ClosedMark, "SwapBuffer: a closed buffer refuses claims");
            Debug.Assert(final >= 0, "SwapBuffer: a closed buffer's count is fixed");
            Debug.Assert(grow || final <= Slots.Length, "SwapBuffer: without Grow a buffer holds at most its capacity");
            Debug.Assert(_taken >= 0 && _taken <= Expected, "SwapBuffer: the worker takes no more than the buffer received");
        }

        /// <summary>Debug builds only, worker side: a standby buffer, recycled (its first slots are looked at).</summary>
        [Conditional("DEBUG")]
        public void AssertRecycled()
        {
            Debug.Assert(Volatile.Read(ref Claimed) >= ClosedMark, "SwapBuffer: a standby buffer refuses claims");
            Debug.Assert(Volatile.Read(ref _finalCount) == -1 && _taken == 0, "SwapBuffer: a standby buffer has no drain state");
            for (int i = 0; i < Math.Min(Slots.Length, 64); i++)
            {
                Debug.Assert(Volatile.Read(ref Slots[i].Written) == 0, "SwapBuffer: a standby buffer's slots are empty");
            }
        }

        public struct Slot
        {
            public T Item;
            public int Written;
        }
    }
}
