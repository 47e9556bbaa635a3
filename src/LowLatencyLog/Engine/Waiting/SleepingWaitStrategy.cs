using System.Threading;

namespace LowLatencyLog.Engine.Waiting;

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
