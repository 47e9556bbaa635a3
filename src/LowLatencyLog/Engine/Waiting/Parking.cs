using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Engine.Waiting;

/// <summary>
/// A worker parked on an event until a producer signals: the handshake shared by <see cref="BlockingWaitStrategy"/> and
/// <see cref="AdaptiveWaitStrategy"/>.
/// </summary>
/// <remarks>
/// <para><b>The handshake</b> (a Dekker-style store-then-load on each side): the worker sets <c>_parked</c> with an
/// interlocked exchange (a full fence) and then checks <see cref="IWorkSignal.HasWork"/> once more before it sleeps.
/// A producer publishes its item, makes sure that store is ordered before its next load (the queue's interlocked claim
/// already is a full fence; otherwise <see cref="Thread.MemoryBarrier"/>), and then reads <c>_parked</c>. Of the two
/// fenced stores one comes first, so either the worker's re-check sees the item or the producer sees the flag and
/// sets the event. Whoever exchanges the flag from 1 to 0 sets it, so there is at most one set per sleep.</para>
/// <para>The sleep has a timeout all the same (<see cref="SafetyTimeoutMilliseconds"/>): should the protocol ever slip
/// (a queue that breaks its fence promise), that costs latency, never an event.</para>
/// </remarks>
internal sealed class Parking
{
    /// <summary>A safety net only: the handshake does the waking.</summary>
    internal const int SafetyTimeoutMilliseconds = 100;

    private readonly bool _fenceBeforeSignal;

    // Spin count 0: the strategies have just spun; SemaphoreSlim and a default ManualResetEventSlim would spin again
    // before they block.
    private readonly ManualResetEventSlim _wake = new ManualResetEventSlim(false, 0);

    // Written by the worker when it parks and by whoever wakes it; read by every producer.
    private PaddedInt _parked;

    private long _wakeUps;
    private long _safetyTimeouts;
    private long _workFoundBeforeSleep;

#if DEBUG
    private long _raised; // worker only: how many times it raised the flag (for AssertInvariants)
#endif

    public Parking(bool claimIsFullFence)
    {
        _fenceBeforeSignal = !claimIsFullFence;
    }

    public bool IsParked => Volatile.Read(ref _parked.Value) != 0;

    public long WakeUps => Interlocked.Read(ref _wakeUps);

    /// <summary>Sleeps that ended on the safety timeout: each lowers the flag for a moment.</summary>
    public long SafetyTimeouts => Interlocked.Read(ref _safetyTimeouts);

    public long WorkFoundBeforeSleep => Interlocked.Read(ref _workFoundBeforeSleep);

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void SignalWork()
    {
        if (_fenceBeforeSignal)
        {
            Thread.MemoryBarrier(); // the publication is visible before we read the flag (pairs with the worker's exchange)
        }

        if (Volatile.Read(ref _parked.Value) != 0)
        {
            Wake();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public void Wake()
    {
        if (Interlocked.Exchange(ref _parked.Value, 0) != 0)
        {
            Interlocked.Increment(ref _wakeUps);
            _wake.Set();
        }
    }

    /// <summary>Worker only. Returns once <paramref name="work"/> has work.</summary>
    public void Park(IWorkSignal work)
    {
        while (true)
        {
            AssertInvariants();

            // Reset before raising the flag: a Set can only come from whoever takes the flag down, so the Set meant for
            // this sleep cannot be lost. A late Set meant for an earlier sleep only makes this one return early.
            _wake.Reset();
#if DEBUG
            _raised++;
#endif
            Interlocked.Exchange(ref _parked.Value, 1); // full fence before the re-check
            try
            {
                if (work.HasWork)
                {
                    _workFoundBeforeSleep++; // worker only; published meanwhile, the producer may find the flag down again
                }
                else if (!_wake.Wait(SafetyTimeoutMilliseconds))
                {
                    _safetyTimeouts++; // worker only; a producer that read the flag while it was down found no one to wake
                }
            }
            finally
            {
                // Woken, timed out, not asleep at all, or interrupted in the wait (the worker goes on after reporting
                // it, awake): the flag comes down.
                Interlocked.Exchange(ref _parked.Value, 0);
            }

            if (work.HasWork)
            {
                AssertInvariants();
                return;
            }
        }
    }

    /// <summary>Debug builds only; worker only, between two sleeps (it compiles away in Release).</summary>
    /// <remarks>
    /// Checks that the parked flag is consistent with its one waiter: it is down whenever the worker is not asleep
    /// (only the worker raises it, and every sleep ends with the worker taking it down, so no waker can find it
    /// raised now); that the wake-ups never outnumber the times the worker raised the flag (a waker sets the event only
    /// after taking a raised flag down: at most one set per sleep); and that the sleeps that ended on the safety
    /// timeout or found work before sleeping do not outnumber them either.
    /// </remarks>
    [Conditional("DEBUG")]
    internal void AssertInvariants()
    {
#if DEBUG
        Debug.Assert(Volatile.Read(ref _parked.Value) == 0, "Parking: the flag is down while the worker is awake");
        Debug.Assert(Interlocked.Read(ref _wakeUps) <= _raised, "Parking: at most one wake-up per raise of the flag");
        Debug.Assert(_safetyTimeouts + _workFoundBeforeSleep <= _raised, "Parking: each raise of the flag ends one sleep at most");
#endif
    }
}
