using System;
using System.Threading;

namespace LowLatencyLog.Core;

/// <summary>How the worker waits for events (the Disruptor appender's <c>waitStrategy</c> setting).</summary>
internal enum WaitStrategyKind
{
    /// <summary>Spin for a few microseconds, then sleep on an event until a producer signals. No idle CPU.</summary>
    Blocking,

    /// <summary>Spin, then yield, then sleep a millisecond at a time. No producer signal; about 1 ms extra latency.</summary>
    Sleeping,

    /// <summary>Spin, then yield the core in a loop. Lowest latency short of busy spinning; an idle worker keeps a core busy.</summary>
    Yielding,

    /// <summary>Spin without pause. Lowest latency; an idle worker burns a whole core.</summary>
    BusySpin,
}

/// <summary>What the worker looks at to decide that it has work: events claimed, a close, a flush request.</summary>
internal interface IWorkSignal
{
    /// <summary>Read by the worker only; every read must be at least an acquire read.</summary>
    bool HasWork { get; }
}

/// <summary>
/// The handshake between producers and the worker in one place: what the worker does when it runs out of work, and
/// what a producer does after it has published an item so that a waiting worker wakes up.
/// </summary>
/// <remarks>
/// Only <see cref="BlockingWaitStrategy"/> puts the worker to sleep, so only it needs anything from producers; the
/// others poll and give producers nothing to do. <see cref="WaitForWork"/> returns only once
/// <see cref="IWorkSignal.HasWork"/> is true, so the worker's loop never re-enters the spin phase while it stays idle.
/// </remarks>
internal abstract class WaitStrategy
{
    /// <summary>Producer side, after every successful enqueue. Must cost next to nothing when the worker is busy.</summary>
    public abstract void SignalWork();

    /// <summary>Any thread: wake the worker now (a close or a flush request). Safe to call at any time.</summary>
    public abstract void Wake();

    /// <summary>Worker only: it found nothing to do. Returns once <paramref name="work"/> has work.</summary>
    public abstract void WaitForWork(IWorkSignal work);

    /// <summary>Creates the strategy for a queue whose claim is (or is not) a full fence.</summary>
    public static WaitStrategy Create(WaitStrategyKind kind, bool claimIsFullFence) => kind switch
    {
        WaitStrategyKind.Blocking => new BlockingWaitStrategy(claimIsFullFence),
        WaitStrategyKind.Sleeping => new SleepingWaitStrategy(),
        WaitStrategyKind.Yielding => new YieldingWaitStrategy(),
        WaitStrategyKind.BusySpin => new BusySpinWaitStrategy(),
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Unknown wait strategy."),
    };

    /// <summary>
    /// The short spin every strategy starts with: the <see cref="SpinWait"/> iterations before it would yield. Measured
    /// on the project's 2-core VM (.NET 10): about 5–10 µs in all (see docs/benchmarks.md, "Idle CPU"). Long enough to
    /// catch the next event of a burst, short enough that an evenly paced application does not keep a core busy.
    /// </summary>
    /// <returns>True if work appeared during the spin.</returns>
    protected static bool SpinBriefly(IWorkSignal work)
    {
        var spinner = new SpinWait();
        while (!spinner.NextSpinWillYield)
        {
            if (work.HasWork)
            {
                return true;
            }

            spinner.SpinOnce();
        }

        return work.HasWork;
    }
}

/// <summary>
/// Spins briefly, then sleeps on an event until a producer signals. The default: no idle CPU, and a producer pays
/// one plain read of a flag (plus a full fence when the queue's claim is not one) while the worker is busy.
/// </summary>
/// <remarks>
/// <para><b>The handshake</b> (a Dekker-style store-then-load on each side): the worker sets <c>_waiting</c> with an
/// interlocked exchange (a full fence) and then checks <see cref="IWorkSignal.HasWork"/> once more before it sleeps.
/// A producer publishes its item, makes sure that store is ordered before its next load (the queue's interlocked claim
/// already is a full fence; otherwise <see cref="Thread.MemoryBarrier"/>), and then reads <c>_waiting</c>. Of the two
/// fenced stores one comes first, so either the worker's re-check sees the item or the producer sees the flag and
/// sets the event. Whoever exchanges the flag from 1 to 0 sets it, so there is at most one set per sleep.</para>
/// <para>The sleep has a timeout all the same (<see cref="SafetyTimeoutMilliseconds"/>): should the protocol ever slip
/// (a queue that breaks its fence promise), that costs latency, never an event.</para>
/// </remarks>
internal sealed class BlockingWaitStrategy : WaitStrategy
{
    /// <summary>A safety net only: the handshake does the waking.</summary>
    internal const int SafetyTimeoutMilliseconds = 100;

    private readonly bool _fenceBeforeSignal;

    // Spin count 0: the strategy has just spun; SemaphoreSlim and a default ManualResetEventSlim would spin again
    // (tens of microseconds per idle period, measured) before they block.
    private readonly ManualResetEventSlim _wake = new ManualResetEventSlim(false, 0);

    // Written by the worker when it goes to sleep and by the producer that wakes it; read by every producer.
    private PaddedInt _waiting;

    private readonly ProcessorPlacement _placement = new ProcessorPlacement();

    public BlockingWaitStrategy(bool claimIsFullFence)
    {
        _fenceBeforeSignal = !claimIsFullFence;
    }

    internal bool IsWorkerWaiting => Volatile.Read(ref _waiting.Value) != 0;

    internal ProcessorPlacement Placement => _placement;

    public override void SignalWork()
    {
        if (_fenceBeforeSignal)
        {
            Thread.MemoryBarrier(); // the publication is visible before we read the flag (pairs with the worker's exchange)
        }

        if (Volatile.Read(ref _waiting.Value) != 0)
        {
            Wake();
        }
    }

    public override void Wake()
    {
        if (Interlocked.Exchange(ref _waiting.Value, 0) != 0)
        {
            _placement.KeepOffWaker();
            _wake.Set();
        }
    }

    public override void WaitForWork(IWorkSignal work)
    {
        if (SpinBriefly(work))
        {
            return;
        }

        while (true)
        {
            // Reset before raising the flag: a Set can only come from whoever takes the flag down, so the Set meant for
            // this sleep cannot be lost. A late Set meant for an earlier sleep only makes this one return early.
            _wake.Reset();
            _placement.BeforeSleep();
            Interlocked.Exchange(ref _waiting.Value, 1); // full fence before the re-check
            if (!work.HasWork)
            {
                _wake.Wait(SafetyTimeoutMilliseconds);
            }

            Interlocked.Exchange(ref _waiting.Value, 0); // woken, timed out or not asleep at all: the flag comes down
            _placement.AfterWake();
            if (work.HasWork)
            {
                return;
            }
        }
    }
}

/// <summary>Spins, yields a while, then sleeps a millisecond at a time. No producer-side cost at all.</summary>
internal sealed class SleepingWaitStrategy : WaitStrategy
{
    private const int Yields = 100;

    public override void SignalWork()
    {
    }

    public override void Wake()
    {
    }

    public override void WaitForWork(IWorkSignal work)
    {
        if (SpinBriefly(work))
        {
            return;
        }

        for (int i = 0; i < Yields; i++)
        {
            if (work.HasWork)
            {
                return;
            }

            Thread.Yield();
        }

        while (!work.HasWork)
        {
            Thread.Sleep(1);
        }
    }
}

/// <summary>Spins, then yields the core in a loop: an idle worker stays runnable and keeps a core busy.</summary>
internal sealed class YieldingWaitStrategy : WaitStrategy
{
    public override void SignalWork()
    {
    }

    public override void Wake()
    {
    }

    public override void WaitForWork(IWorkSignal work)
    {
        if (SpinBriefly(work))
        {
            return;
        }

        while (!work.HasWork)
        {
            if (!Thread.Yield())
            {
                Thread.SpinWait(1);
            }
        }
    }
}

/// <summary>Spins without pause: the lowest latency, and a whole core for an idle worker.</summary>
internal sealed class BusySpinWaitStrategy : WaitStrategy
{
    public override void SignalWork()
    {
    }

    public override void Wake()
    {
    }

    public override void WaitForWork(IWorkSignal work)
    {
        while (!work.HasWork)
        {
            Thread.SpinWait(1);
        }
    }
}
