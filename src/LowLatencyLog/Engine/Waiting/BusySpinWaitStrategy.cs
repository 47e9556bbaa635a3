using System.Threading;

namespace LowLatencyLog.Engine.Waiting;

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
