using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

namespace LowLatencyLog.Engine.Disruptor;

/// <summary>
/// The single-producer claim of <see cref="DisruptorQueue{T}"/>, and the hand-over to the multi-producer claim when a
/// second thread publishes anyway (or the ring closes).
/// </summary>
/// <remarks>
/// <para><b>Single mode.</b> The first thread to publish becomes the owner (a compare-and-swap of
/// <see cref="RingSequences.Owner"/>, once). The owner claims with no interlocked operation: it reads the cursor, which
/// only it writes, checks room against its cached gating sequence, publishes the item as in Multi mode, and stores the
/// new cursor with a release store. Telling a second thread apart costs one compare of
/// <see cref="Environment.CurrentManagedThreadId"/> per claim.</para>
/// <para><b>Hand-over.</b> A thread that is not the owner (an application thread, or the worker when a child logs back
/// into the appender) must not claim with a compare-and-swap while the owner may be writing the cursor with a plain
/// store: both could take the same position. Under a lock it sets <see cref="RingSequences.Mode"/> to HandingOver, waits
/// until the owner is not inside a single-producer claim, and only then sets it to Multi; a thread (the owner included)
/// that finds a hand-over under way waits for that lock. From then on every claim is interlocked, and nothing was lost or
/// written twice (a thread that claimed as in Multi mode as soon as the mode left Single could take the position the
/// owner was still claiming). The owner brackets each claim with <see cref="RingSequences.OwnerBusy"/> = 1 …
/// 0 and reads the mode in between. This is Dekker's store-then-load on both sides (owner: busy, then mode; hand-over:
/// mode, then busy), made asymmetric so the owner pays no fence: the hand-over, which happens at most once, issues
/// <c>Interlocked.MemoryBarrierProcessWide</c>, which flushes every core's store buffer. Either the owner read
/// the mode after that barrier and saw it had left Single, or its busy store came before its read of the mode and the barrier made it
/// visible, so the hand-over waits for it to clear. Volatile accesses keep their program order in the JIT, so the
/// busy store is not moved past the mode read. The netstandard2.0 build has no process-wide barrier: there the owner
/// sets the flag with an interlocked exchange instead (a full fence on an uncontended line).</para>
/// <para>The owner never waits inside a claim (a full ring returns <see cref="EnqueueResult.Full"/> and the dispatcher
/// waits outside), so the hand-over's wait is short. <see cref="Close"/> hands over first, so that sealing the cursor
/// with a compare-and-swap stops every later claim.</para>
/// </remarks>
internal sealed partial class DisruptorQueue<T>
{
    private readonly object _modeLock = new object();
    private int _misuseReported;

    /// <summary>
    /// The owner gives the ring up, so the next thread to publish becomes the owner: for events queued on the
    /// application's behalf by another thread (those that arrived before activation) while no other thread can publish.
    /// The compare-and-swap that clears <see cref="RingSequences.Owner"/> is a full fence after the owner's last cursor
    /// store, and the next owner's compare-and-swap that sets it reads that value, so the next owner sees the cursor.
    /// </summary>
    public void ReleaseProducer()
    {
        if (Volatile.Read(ref _seq.Mode) == SingleMode)
        {
            Interlocked.CompareExchange(ref _seq.Owner, 0, Environment.CurrentManagedThreadId);
        }
    }

    /// <summary>A Single ring still in Single mode.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private EnqueueResult TryEnqueueSingleMode(in T item)
    {
        if (_seq.Owner == Environment.CurrentManagedThreadId && TryEnqueueAsOwner(item, out EnqueueResult result))
        {
            return result;
        }

        return TryEnqueueNotOwner(item);
    }

    /// <summary>The owner's claim.</summary>
    /// <returns>False when the ring was handed over to Multi meanwhile (nothing was claimed).</returns>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryEnqueueAsOwner(in T item, out EnqueueResult result)
    {
        bool single;
        result = EnqueueResult.Full;
        try
        {
        }
        finally
        {
            // In a finally block so that a .NET Framework Thread.Abort cannot leave the busy flag set.
#if NETSTANDARD2_0
            Interlocked.Exchange(ref _seq.OwnerBusy, 1); // full fence: the flag is visible before the mode is read
#else
            Volatile.Write(ref _seq.OwnerBusy, 1); // plain store: the hand-over's process-wide barrier makes it visible
#endif
            single = Volatile.Read(ref _seq.Mode) == SingleMode;
            if (single)
            {
                long position = _seq.Cursor; // only the owner writes the cursor in Single mode
                long wrapPoint = position - _capacity;
                if (wrapPoint < Volatile.Read(ref _seq.GatingCache) || wrapPoint < RefreshGatingCache())
                {
                    try
                    {
                        Publish(position, item);
                    }
                    catch
                    {
                        // The store threw (out of memory): the cursor did not move, so nothing was claimed (the next
                        // publication reuses the position); the busy flag must not stay set, or a hand-over (and the
                        // close) would wait for it for good.
                        Volatile.Write(ref _seq.OwnerBusy, 0);
                        throw;
                    }

                    Volatile.Write(ref _seq.Cursor, position + 1); // release: the claim count follows the publication
                    result = EnqueueResult.Enqueued;

                    // The cursor is the owner's alone until it clears the busy flag: a hand-over waits for that.
                    Debug.Assert(Volatile.Read(ref _seq.Cursor) == position + 1, "DisruptorQueue: in Single mode only the owner moves the cursor");
                }

                // Otherwise full: with no competitor, the owner simply tries again later.
            }

            Volatile.Write(ref _seq.OwnerBusy, 0); // release: the claim is complete before a hand-over sees the flag clear
        }

        if (result == EnqueueResult.Enqueued)
        {
            AssertInvariants();
        }

        return single;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private EnqueueResult TryEnqueueNotOwner(in T item)
    {
        while (!LeaveSingleModeUnlessOwner())
        {
            // This thread has just become the owner (the first publisher).
            if (TryEnqueueAsOwner(item, out EnqueueResult result))
            {
                return result;
            }
        }

        return TryEnqueueMulti(item);
    }

    /// <summary>
    /// Registers the first publisher as the owner; for any other thread, hands the ring over to the multi-producer claim
    /// and reports the misuse once.
    /// </summary>
    /// <returns>True when the caller must claim as in Multi mode; false when it is the owner and the ring is still in Single mode.</returns>
    private bool LeaveSingleModeUnlessOwner()
    {
        int me = Environment.CurrentManagedThreadId;
        int owner = Interlocked.CompareExchange(ref _seq.Owner, me, 0);
        if (owner == 0 || owner == me)
        {
            int mode = Volatile.Read(ref _seq.Mode);
            if (mode == HandingOverMode)
            {
                lock (_modeLock)
                {
                    // The hand-over holds the lock until the owner is out of its claim and the mode is Multi.
                }

                return true;
            }

            return mode == MultiMode;
        }

        bool handedOver;
        lock (_modeLock)
        {
            handedOver = LeaveSingleModeLocked();
        }

        if (handedOver && Interlocked.Exchange(ref _misuseReported, 1) == 0)
        {
            ReportError?.Invoke(
                $"producerType=Single, but thread {me} published to the ring after thread {owner}, its first publisher. " +
                "The ring now claims as with producerType=Multi, so no event is lost; set producerType=Multi when more " +
                "than one thread logs to this appender (a child appender that logs back counts as one).");
        }

        return true;
    }

    /// <summary>Under <c>_modeLock</c>: switches to Multi and waits until the owner is out of its claim.</summary>
    /// <returns>True if this call switched; false if the ring already was in Multi mode.</returns>
    private bool LeaveSingleModeLocked()
    {
        Debug.Assert(Monitor.IsEntered(_modeLock));
        if (Volatile.Read(ref _seq.Mode) == MultiMode)
        {
            return false;
        }

        // Not Multi yet: a thread that sees Multi claims at once, and the owner may still be inside its claim.
        Interlocked.Exchange(ref _seq.Mode, HandingOverMode); // full fence before the busy flag is read
#if !NETSTANDARD2_0
        Interlocked.MemoryBarrierProcessWide(); // the owner's plain busy store, if it read the old mode, is now visible
#endif
        var spinner = new SpinWait();
        while (Volatile.Read(ref _seq.OwnerBusy) != 0)
        {
            spinner.SpinOnce(); // the owner never waits inside a claim, so this is short unless it was preempted
        }

        Volatile.Write(ref _seq.Mode, MultiMode); // release: the owner's last claim comes before every Multi claim
        AssertInvariants();
        return true;
    }

    /// <summary>Re-reads the consumer's sequence into the cache (one atomic 64-bit store, also on 32-bit runtimes).</summary>
    private long RefreshGatingCache()
    {
        long consumer = Volatile.Read(ref _seq.Consumer);
        Volatile.Write(ref _seq.GatingCache, consumer);
        return consumer;
    }
}
