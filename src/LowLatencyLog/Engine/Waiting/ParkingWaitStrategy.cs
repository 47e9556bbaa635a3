namespace LowLatencyLog.Engine.Waiting;

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
