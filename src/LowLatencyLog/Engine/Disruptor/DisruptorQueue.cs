using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Engine.Disruptor;

/// <summary>
/// A Disruptor ring (Thompson et al., "Disruptor: high performance alternative to bounded queues", LMAX, 2011) behind
/// the dispatcher's seam: a power-of-two array of pre-allocated slots that producers fill in place, a cursor of claimed
/// positions, one gating sequence (the worker's), and an availability buffer that tells the worker which claimed
/// positions are published. docs/disruptor.md describes the protocol at length; the short form follows.
/// </summary>
/// <remarks>
/// <para><b>Claim.</b> Position <c>p</c> uses slot <c>p &amp; mask</c>, whose previous occupant was <c>p - capacity</c>;
/// the slot is free once the gating sequence (<see cref="RingSequences.Consumer"/>, the next position the worker takes)
/// is past that, that is when <c>p - capacity &lt; consumer</c>. In Multi mode a producer checks for room first, against a
/// cached copy of the gating sequence, and then claims with a compare-and-swap of the cursor (<see cref="TryNext"/>,
/// Disruptor's <c>TryNext</c>): it never waits, so <see cref="OverflowAction.Discard"/> can give up, and a producer that
/// finds the ring full leaves the waiting to the dispatcher (spin briefly, then sleep on its room gate until the worker
/// frees slots). The compare-and-swap is a full fence and is what <see cref="HasPending"/> shows the worker, which is
/// what the Blocking wait strategy's handshake needs. The Single mode (<c>DisruptorQueue.SingleProducer.cs</c>) claims
/// with plain reads and a release store. docs/disruptor.md says why the claim is not an interlocked add.</para>
/// <para><b>Publish.</b> The producer copies the item into the slot, then writes the position's lap number
/// (<c>p &gt;&gt; log2(capacity)</c>) into the slot's availability entry with a release store: the item is visible before
/// the entry says it is there. Lap numbers differ from one lap to the next, so entries never need resetting.</para>
/// <para><b>Consume.</b> The worker walks the availability entries from its own sequence while each holds the lap its
/// position expects (acquire reads): that is the end of the contiguous published range, even when later positions were
/// published first by faster producers. It reads the cursor only when that range is empty, to tell "a claim is being
/// written" (<see cref="HasPending"/>) from "nothing claimed". It copies the whole range out in one batch,
/// clears those slots (no references kept) and only then moves the gating sequence past them with a release store, so
/// a producer that sees the new value also sees the cleared slots and cannot overwrite an item before it was read.</para>
/// <para><b>Close.</b> The cursor's <see cref="SealedBit"/> is set by a compare-and-swap. Every later claim's
/// compare-and-swap fails on the sealed value, so the claim is refused, and the positions below the sealed cursor are
/// exactly those claimed before the close: the worker drains them, then the ring is complete.</para>
/// </remarks>
internal sealed partial class DisruptorQueue<T> : IEventQueue<T>, IReportingQueue, IProducerBoundQueue
{
    internal const long SealedBit = 1L << 62;
    internal const int SingleMode = 0;
    internal const int MultiMode = 1;
    internal const int HandingOverMode = 2;

    // Read by producers and the worker; written once, here.
    private readonly T[] _slots;
    private readonly int[] _available;
    private readonly int _mask;
    private readonly int _shift;
    private readonly long _capacity;

    private RingSequences _seq;

    // Written once, by Close, after the seal: lets the worker's idle poll (IsClosed) stay off the cursor's line.
    private volatile bool _closed;

    // Worker side.
    private bool _lastDrainFreedRoom;

    public DisruptorQueue(int capacity, ProducerType producerType)
    {
        if (capacity <= 0 || (capacity & (capacity - 1)) != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(capacity), capacity, "The ring's size must be a power of two.");
        }

        _slots = ItemCopy.Prepare(Prefault.Touch(new T[capacity]));
        _available = new int[capacity];
        _mask = capacity - 1;
        _capacity = capacity;
        while ((1 << _shift) < capacity)
        {
            _shift++;
        }

        for (int i = 0; i < capacity; i++)
        {
            _available[i] = -1; // lap 0 is not published yet
        }

        ProducerType = producerType;
        _seq.Mode = producerType == ProducerType.Single ? SingleMode : MultiMode;
    }

    public int Capacity => _slots.Length;

    public ProducerType ProducerType { get; }

    /// <summary>False for Single: the owner publishes with release stores, so the wait strategy adds the fence.</summary>
    public bool ClaimIsFullFence => ProducerType == ProducerType.Multi;

    public bool IsClosed => _closed;

    public long EnqueuedCount => Claimed();

    public long Count => Math.Max(0, Claimed() - Volatile.Read(ref _seq.Consumer));

    public bool HasPending => Claimed() != _seq.Consumer;

    public bool IsCompleted
    {
        get
        {
            if (!_closed)
            {
                return false; // the cursor's line stays with the producers while the ring is open
            }

            long cursor = Volatile.Read(ref _seq.Cursor);
            return (cursor & SealedBit) != 0 && (cursor & ~SealedBit) == _seq.Consumer;
        }
    }

    public bool LastDrainFreedRoom => _lastDrainFreedRoom;

    /// <summary>Whether a Single ring has fallen back to the multi-producer claim (a second thread published, or it closed).</summary>
    internal bool IsMultiProducer => Volatile.Read(ref _seq.Mode) == MultiMode;

    /// <summary>Where a misuse of <see cref="ProducerType.Single"/> is reported (the factory's channel plus the dispatcher's).</summary>
    public Action<string>? ReportError { get; set; }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public EnqueueResult TryEnqueue(in T item)
    {
        if (_seq.Mode == MultiMode)
        {
            return TryEnqueueMulti(item);
        }

        return TryEnqueueSingleMode(item);
    }

    /// <summary>Multi: claim and publish in one step; never waits.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private EnqueueResult TryEnqueueMulti(in T item)
    {
        EnqueueResult result;
        try
        {
        }
        finally
        {
            // Claim and publish in a finally block: .NET Framework defers Thread.Abort there, so a position is never
            // left claimed but unpublished (the worker would wait for it for good).
            result = TryNext(out long position);
            if (result == EnqueueResult.Enqueued)
            {
                try
                {
                    Publish(position, item);
                }
                catch
                {
                    PublishSkipped(position); // the store threw (out of memory): the position is still published
                    throw;
                }
            }
        }

        AssertInvariants();
        return result;
    }

    /// <summary>
    /// Multi mode (Disruptor's <c>TryNext</c>): claims the next position if its slot is free, with a compare-and-swap of
    /// the cursor; never waits. The caller must <see cref="Publish"/> a claimed position.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal EnqueueResult TryNext(out long position)
    {
        position = Volatile.Read(ref _seq.Cursor);
        while (true)
        {
            if ((position & SealedBit) != 0)
            {
                return EnqueueResult.Closed;
            }

            if (position - _capacity >= Volatile.Read(ref _seq.GatingCache) && !HasRoomFor(position))
            {
                // Full, unless the cursor moved on while we looked.
                long current = Volatile.Read(ref _seq.Cursor);
                if (current == position)
                {
                    return EnqueueResult.Full;
                }

                position = current;
                continue;
            }

            // A full fence. It fails on a sealed cursor, since the position read above has no sealed bit.
            long observed = Interlocked.CompareExchange(ref _seq.Cursor, position + 1, position);
            if (observed == position)
            {
                return EnqueueResult.Enqueued;
            }

            position = observed;
        }
    }

    /// <summary>Re-reads the gating sequence when the cached copy says the slot for <paramref name="position"/> is taken.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool HasRoomFor(long position)
    {
        long consumer = Volatile.Read(ref _seq.Consumer); // acquire: the worker's reads of the slot are done
        Volatile.Write(ref _seq.GatingCache, consumer); // atomic on 32-bit runtimes too: a torn value would skip the room check
        return position - _capacity < consumer;
    }

    /// <summary>Copies the item into the slot of a claimed position, then marks the position published (release).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    internal void Publish(long position, in T item)
    {
        int index = (int)position & _mask;
        ItemCopy.Copy(ref _slots[index], in item);
        Volatile.Write(ref _available[index], (int)(position >> _shift));
    }

    /// <summary>Publishes a claimed position whose store threw, holding a mark the worker drops.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void PublishSkipped(long position)
    {
        int index = (int)position & _mask;
        ItemCopy.Skip(ref _slots[index]);
        Volatile.Write(ref _available[index], (int)(position >> _shift));
    }

    [MethodImpl(Jit.Optimized)]
    public int Drain(T[] buffer)
    {
        long next = _seq.Consumer; // only the worker writes it
        long end = next + buffer.Length;

        // The end of the contiguous published range: walk the availability entries while each holds its lap. The
        // cursor is not needed as a bound: an entry holds position p's lap only once p is published (the previous
        // occupant wrote lap - 1, and position p + capacity cannot be claimed before p is taken), so the walk stops at
        // the first position not yet published, claimed or not. Not reading the cursor here keeps the worker off the
        // line every producer writes while it is busy.
        int[] available = _available;
        long published = next;
        while (published < end && Volatile.Read(ref available[(int)published & _mask]) == (int)(published >> _shift))
        {
            published++;
        }

        int count = (int)(published - next);
        if (count == 0)
        {
            _lastDrainFreedRoom = false;
            return 0;
        }

        // The whole range at once; the acquire reads above order these reads after each item's publication.
        T[] slots = _slots;
        for (int i = 0; i < count; i++)
        {
            ref T slot = ref slots[(int)(next + i) & _mask];
            ItemCopy.Take(ref buffer[i], ref slot);
        }

        // Release: the slots are read and cleared before a producer can see them free.
        Volatile.Write(ref _seq.Consumer, published);
        _lastDrainFreedRoom = true;
        AssertInvariants();
        AssertAvailabilityAhead(published);
        return count;
    }

    /// <summary>Positions claimed so far; after the close, final.</summary>
    private long Claimed() => Volatile.Read(ref _seq.Cursor) & ~SealedBit;

    public void Close()
    {
        lock (_modeLock)
        {
            if (_closed)
            {
                return;
            }

            // A single producer claims with plain stores, which a compare-and-swap could not stop; take the ring over
            // to the multi-producer claim first, so that the seal below is the last word.
            LeaveSingleModeLocked();

            long cursor = Volatile.Read(ref _seq.Cursor);
            while (true)
            {
                long observed = Interlocked.CompareExchange(ref _seq.Cursor, cursor | SealedBit, cursor);
                if (observed == cursor)
                {
                    _closed = true;
                    AssertInvariants();
                    return;
                }

                cursor = observed;
            }
        }
    }

    /// <summary>Debug builds only (it compiles away in Release); any thread.</summary>
    /// <remarks>
    /// Checks the sequence ordering: the worker's gating sequence never passes the claims (it takes only claimed
    /// positions; in Single mode by one at most, since the owner publishes a position before it stores the cursor), the claims never run more than one lap (the capacity) ahead of it (a position is claimed only once
    /// its slot's previous occupant was taken), and the producers' cached copy of it never runs ahead of it (the cache
    /// only holds values it had, so it never shows room that is not there). Each pair is read in the order that keeps
    /// the check true while other threads move them: all three only grow. Also the mode: a Multi ring never is in
    /// Single mode, and a closed ring has its cursor sealed and claims as in Multi mode.
    /// </remarks>
    [Conditional("DEBUG")]
    internal void AssertInvariants()
    {
        int mode = Volatile.Read(ref _seq.Mode);
        long consumer = Volatile.Read(ref _seq.Consumer);
        long ahead = mode == MultiMode ? 0 : 1; // the owner publishes a position before it stores the cursor past it
        Debug.Assert(consumer >= 0 && consumer <= Claimed() + ahead, "DisruptorQueue: the consumer never passes the claims");
        long claimed = Claimed();
        Debug.Assert(claimed - Volatile.Read(ref _seq.Consumer) <= _capacity, "DisruptorQueue: claims run at most one lap ahead");
        long cached = Volatile.Read(ref _seq.GatingCache);
        Debug.Assert(cached <= Volatile.Read(ref _seq.Consumer), "DisruptorQueue: the gating cache never runs ahead of the consumer");
        mode = Volatile.Read(ref _seq.Mode);
        Debug.Assert(mode == MultiMode || ProducerType == ProducerType.Single, "DisruptorQueue: only a Single ring leaves Multi mode");
        Debug.Assert(!_closed || ((Volatile.Read(ref _seq.Cursor) & SealedBit) != 0 && mode == MultiMode), "DisruptorQueue: a closed ring is sealed and in Multi mode");
    }

    /// <summary>Debug builds only; worker only, after a drain that moved the gating sequence to <paramref name="consumer"/>.</summary>
    /// <remarks>
    /// Checks the availability entries of the next positions (up to 64): the entry for a position <c>p</c> at or past
    /// the consumer holds the lap of its slot's previous occupant (<c>p - capacity</c>, taken, so published) or its own
    /// lap (published), never an older or a later one.
    /// </remarks>
    [Conditional("DEBUG")]
    private void AssertAvailabilityAhead(long consumer)
    {
        long end = consumer + Math.Min(_capacity, 64);
        for (long p = consumer; p < end; p++)
        {
            int lap = (int)(p >> _shift);
            int entry = Volatile.Read(ref _available[(int)p & _mask]);
            Debug.Assert(entry == lap || entry == lap - 1, "DisruptorQueue: an entry ahead of the consumer holds its lap or the one before");
        }
    }
}

/// <summary>The <c>producerType</c> setting: how producers claim positions in the ring.</summary>
internal enum ProducerType
{
    /// <summary>Any number of producer threads: claims are interlocked operations.</summary>
    Multi,

    /// <summary>One producer thread: claims are plain stores. A second thread is detected, reported, and switches the ring to Multi.</summary>
    Single,
}
