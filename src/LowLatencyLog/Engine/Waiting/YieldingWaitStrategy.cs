using System.Threading;

namespace LowLatencyLog.Engine.Waiting;

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
