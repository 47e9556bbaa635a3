using System;
using System.Runtime.InteropServices;
using System.Threading;

namespace LowLatencyLog.Engine.Waiting;

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

    /// <summary>Creates the strategy for a queue whose claim is (or is not) a full fence.</summary>
    public static WaitStrategy Create(WaitStrategyKind kind, bool claimIsFullFence) => kind switch
    {
        WaitStrategyKind.Adaptive => new AdaptiveWaitStrategy(
            claimIsFullFence,
            AdaptiveWaitStrategy.PollMilliseconds,
            AdaptiveWaitStrategy.ParkAfterMilliseconds,
            pollsCutShort: RuntimeInformation.IsOSPlatform(OSPlatform.Windows)),
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
