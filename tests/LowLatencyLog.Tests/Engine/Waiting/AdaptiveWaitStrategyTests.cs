using System;
using System.Threading;
using System.Threading.Tasks;
using LowLatencyLog.Engine.Waiting;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine.Waiting;

/// <summary>
/// The default wait's polls: where they wait on an event (Windows, whose timer ticks every 15.6 ms), a flush, a close
/// or a full buffer (<see cref="WaitStrategy.Wake"/>) ends the poll at once; a producer's signal never does (that
/// would be a system call per event). Polls of a minute tell the two apart without timing anything.
/// </summary>
public sealed class AdaptiveWaitStrategyTests
{
    private const int MinutePoll = 60_000;
    private const int NeverPark = int.MaxValue / 1000;

    private sealed class Signal : IWorkSignal
    {
        private volatile bool _hasWork;

        public bool HasWork => _hasWork;

        public void Set() => _hasWork = true;
    }

    [Test]
    public void Wake_EndsAPollThatWaitsOnTheEvent()
    {
        var wait = new AdaptiveWaitStrategy(claimIsFullFence: true, MinutePoll, NeverPark, pollsCutShort: true);
        var work = new Signal();
        Task waiting = Task.Factory.StartNew(() => wait.WaitForWork(work), TaskCreationOptions.LongRunning);
        Thread.Sleep(50); // let it reach the poll (if it has not, it sees the work on its first look)

        work.Set();
        wait.Wake();

        Assert.That(waiting.Wait(TimeSpan.FromSeconds(30)), Is.True, "the minute-long poll was cut short");
        Assert.That(wait.Parking.WakeUps, Is.Zero, "a polling worker is not parked: no wake-up counted");
    }

    [Test]
    public void SignalWork_LeavesThePollToItsTimer()
    {
        var wait = new AdaptiveWaitStrategy(claimIsFullFence: true, MinutePoll, NeverPark, pollsCutShort: true);
        var work = new Signal();
        Task waiting = Task.Factory.StartNew(() => wait.WaitForWork(work), TaskCreationOptions.LongRunning);
        Thread.Sleep(50);

        work.Set();
        wait.SignalWork();

        Assert.That(waiting.Wait(TimeSpan.FromMilliseconds(500)), Is.False, "a producer's signal sets nothing while the worker polls");
        wait.Wake();
        Assert.That(waiting.Wait(TimeSpan.FromSeconds(30)), Is.True);
    }

    [Test]
    public void AParkedWorker_IsWokenByTheNextSignal_Once()
    {
        var wait = new AdaptiveWaitStrategy(claimIsFullFence: true, MinutePoll, parkAfterMilliseconds: 0, pollsCutShort: false);
        var work = new Signal();
        Task waiting = Task.Factory.StartNew(() => wait.WaitForWork(work), TaskCreationOptions.LongRunning);
        Assert.That(SpinWait.SpinUntil(() => wait.Parking.IsParked, TimeSpan.FromSeconds(30)), Is.True, "idle past the threshold, it parks");

        work.Set();
        wait.SignalWork();

        Assert.That(waiting.Wait(TimeSpan.FromSeconds(30)), Is.True);
        Assert.That(wait.Parking.WakeUps, Is.EqualTo(1));
    }
}
