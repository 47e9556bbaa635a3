using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Engine.Waiting;

/// <summary>How the worker waits for events (the async appenders' <c>waitStrategy</c> setting).</summary>
internal enum WaitStrategyKind
{
    /// <summary>Spin briefly, then poll on a 4 ms timer; park after a second without events. Calling threads never wake the worker while the application keeps logging; only the first call after a
    /// park pays one wake-up. The default.</summary>
    Adaptive,

    /// <summary>Spin for a few microseconds, then sleep on an event until a producer signals. No idle CPU; the calling
    /// thread that finds the worker asleep pays the wake-up (a system call).</summary>
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
/// Only a strategy that parks the worker (<see cref="BlockingWaitStrategy"/>, and <see cref="AdaptiveWaitStrategy"/>
/// after a long idle spell) needs anything from producers; the others poll and give producers nothing to do.
/// <see cref="WaitForWork"/> returns only once <see cref="IWorkSignal.HasWork"/> is true, so the worker's loop never
/// re-enters the spin phase while it stays idle.
/// </remarks>
internal abstract class WaitStrategy
{
    /// <summary>Producer side, after every successful enqueue. Must cost next to nothing when the worker is busy.</summary>
    public abstract void SignalWork();

    /// <summary>Any thread: wake the worker now (a close or a flush request). Safe to call at any time.</summary>
    public abstract void Wake();

    /// <summary>Worker only: it found nothing to do. Returns once <paramref name="work"/> has work.</summary>
    public abstract void WaitForWork(IWorkSignal work);

    /// <summary>How many times a caller (producer, flush or close) had to wake a parked worker: a system call each.</summary>
    public virtual long WakeUps => 0;

    /// <summary>How many times a parked worker's sleep ran out on its safety timeout (tests and diagnostics).</summary>
    public virtual long SafetyTimeouts => 0;

    /// <summary>How many times the worker found work after raising its parked flag, before sleeping (diagnostics): a
    /// producer that published then may have read the flag after it came down again, and woken no one.</summary>
    public virtual long WorkFoundBeforeSleep => 0;

    /// <summary>Whether the worker is parked, waiting for a producer's signal (tests and diagnostics).</summary>
    public virtual bool IsWorkerParked => false;

    /// <summary>Creates the strategy for a queue whose claim is (or is not) a full fence.</summary>
    public static WaitStrategy Create(WaitStrategyKind kind, bool claimIsFullFence) => kind switch
    {
        WaitStrategyKind.Adaptive => new AdaptiveWaitStrategy(claimIsFullFence),
        WaitStrategyKind.Blocking => new BlockingWaitStrategy(claimIsFullFence),
        WaitStrategyKind.Sleeping => new SleepingWaitStrategy(),
        WaitStrategyKind.Yielding => new YieldingWaitStrategy(),
        WaitStrategyKind.BusySpin => new BusySpinWaitStrategy(),
        _ => throw new ArgumentOutOfRangeException(nameof(kind), kind, "Unknown wait strategy."),
    };

    /// <summary>
    /// The short spin every strategy starts with: the <see cref="SpinWait"/> iterations before it would yield (a few
    /// microseconds). Long enough to catch the next event of a burst, short enough that an evenly paced application
    /// does not keep a core busy.
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
            // Reset before raising the flag: a Set can only come from whoever takes the flag down, so the Set meant for
            // this sleep cannot be lost. A late Set meant for an earlier sleep only makes this one return early.
            _wake.Reset();
            Interlocked.Exchange(ref _parked.Value, 1); // full fence before the re-check
            if (work.HasWork)
            {
                _workFoundBeforeSleep++; // worker only; published meanwhile, the producer may find the flag down again
            }
            else if (!_wake.Wait(SafetyTimeoutMilliseconds))
            {
                _safetyTimeouts++; // worker only; a producer that read the flag while it was down found no one to wake
            }

            Interlocked.Exchange(ref _parked.Value, 0); // woken, timed out or not asleep at all: the flag comes down
            if (work.HasWork)
            {
                return;
            }
        }
    }
}

/// <summary>A strategy that may park the worker: producers and <see cref="Wake"/> go through the shared handshake.</summary>
internal abstract class ParkingWaitStrategy : WaitStrategy
{
    private protected ParkingWaitStrategy(bool claimIsFullFence)
    {
        Parking = new Parking(claimIsFullFence);
    }

    private protected Parking Parking { get; }

    public override long WakeUps => Parking.WakeUps;

    public override long SafetyTimeouts => Parking.SafetyTimeouts;

    public override long WorkFoundBeforeSleep => Parking.WorkFoundBeforeSleep;

    public override bool IsWorkerParked => Parking.IsParked;

    public override void SignalWork() => Parking.SignalWork();

    public override void Wake() => Parking.Wake();
}

/// <summary>
/// Spins briefly, then parks until a producer signals: no idle CPU, and the producer that finds the worker parked
/// pays the wake-up (a system call, a few microseconds). A producer pays one plain read of a flag (plus a full fence
/// when the queue's claim is not one) while the worker is busy.
/// </summary>
internal sealed class BlockingWaitStrategy : ParkingWaitStrategy
{
    public BlockingWaitStrategy(bool claimIsFullFence)
        : base(claimIsFullFence)
    {
    }

    public override void WaitForWork(IWorkSignal work)
    {
        if (!SpinBriefly(work))
        {
            Parking.Park(work);
        }
    }
}

/// <summary>
/// The default. Spins briefly, then waits on a timer and looks again every <see cref="PollMilliseconds"/>; after
/// <see cref="ParkAfterMilliseconds"/> without events it parks like <see cref="BlockingWaitStrategy"/>.
/// </summary>
/// <remarks>
/// <para>While the application keeps logging, even a few events a second, the worker wakes on its own timer, so no
/// calling thread makes a system call to wake it: a producer reads one flag that stays down. Only the first event after
/// a second of silence finds the worker parked and pays one wake-up.</para>
/// <para>The interval trades the time an event waits before the worker takes it against the CPU the polls cost an
/// idle application: each timer wake-up costs the worker some microseconds (more on a virtual machine). Between polls
/// events build up into one batch, written and flushed once.</para>
/// <para>On Windows the poll is a timed wait on an event that <see cref="Wake"/> sets, so a flush, a close or a
/// producer that finds the buffer full cuts it short instead of waiting for the default timer's 15.6 ms tick (a
/// <see cref="Thread.Sleep(int)"/> of 4 ms lasts that long there). Elsewhere it is a plain sleep: a timed wait on an
/// event costs the worker about half as much CPU again per poll on Linux (docs/design.md, "The default wait"), and a
/// flush waits at most one 4 ms interval. Producers' <see cref="WaitStrategy.SignalWork"/> never sets the event: that would be a
/// system call per event.</para>
/// </remarks>
internal sealed class AdaptiveWaitStrategy : ParkingWaitStrategy
{
    /// <summary>Idle this long, the worker parks and the next event pays one wake-up.</summary>
    internal const int ParkAfterMilliseconds = 1000;

    /// <summary>The poll interval: the most an event waits for a worker that is polling.</summary>
    internal const int PollMilliseconds = 4;

    // Spin count 0: the strategy has just spun. Null where polls sleep.
    private readonly ManualResetEventSlim? _poke;
    private readonly int _pollMilliseconds;
    private readonly long _parkAfterTicks;

    public AdaptiveWaitStrategy(bool claimIsFullFence)
        : this(claimIsFullFence, PollMilliseconds, ParkAfterMilliseconds, pollsCutShort: RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
    {
    }

    /// <summary>Other intervals and either kind of poll, for tests that must tell a poll cut short from one that ran out.</summary>
    internal AdaptiveWaitStrategy(bool claimIsFullFence, int pollMilliseconds, int parkAfterMilliseconds, bool pollsCutShort)
        : base(claimIsFullFence)
    {
        _pollMilliseconds = pollMilliseconds;
        _parkAfterTicks = Stopwatch.Frequency * parkAfterMilliseconds / 1000;
        _poke = pollsCutShort ? new ManualResetEventSlim(false, 0) : null;
    }

    public override void Wake()
    {
        Parking.Wake();
        _poke?.Set();
    }

    public override void WaitForWork(IWorkSignal work)
    {
        if (SpinBriefly(work))
        {
            return;
        }

        long idleSince = Stopwatch.GetTimestamp();
        while (true)
        {
            if (_poke != null)
            {
                // Reset, then look: a Wake after the reset ends the wait below; one before it left work to see.
                _poke.Reset();
                Thread.MemoryBarrier();
            }

            if (work.HasWork)
            {
                return;
            }

            if (Stopwatch.GetTimestamp() - idleSince >= _parkAfterTicks)
            {
                Parking.Park(work);
                return;
            }

            if (_poke != null)
            {
                _poke.Wait(_pollMilliseconds);
            }
            else
            {
                Thread.Sleep(_pollMilliseconds);
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
