namespace LowLatencyLog.Engine.Waiting;

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
