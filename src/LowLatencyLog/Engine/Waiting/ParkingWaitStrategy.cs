namespace LowLatencyLog.Engine.Waiting;

/// <summary>A strategy that may park the worker: producers and <see cref="Wake"/> go through the shared handshake.</summary>
internal abstract class ParkingWaitStrategy : WaitStrategy
{
    private protected ParkingWaitStrategy(bool claimIsFullFence)
    {
        Parking = new Parking(claimIsFullFence);
    }

    /// <summary>The handshake this strategy parks the worker with.</summary>
    internal Parking Parking { get; }

    public override void SignalWork() => Parking.SignalWork();

    public override void Wake() => Parking.Wake();
}
