using LowLatencyLog.Engine;
using LowLatencyLog.Engine.Waiting;

namespace LowLatencyLog.Tests.Support;

/// <summary>The handshake a dispatcher's worker parks on, read where the strategy keeps it (no probe in the library).</summary>
internal static class ParkingOf
{
    /// <summary>The dispatcher's handshake; the strategy must be one that parks (Blocking or Adaptive).</summary>
    public static Parking Dispatcher<T>(AsyncDispatcher<T> dispatcher) => ((ParkingWaitStrategy)dispatcher.Wait).Parking;

    /// <summary>Whether the worker is parked, waiting for a producer's signal; never, for a strategy that only polls.</summary>
    public static bool IsWorkerParked<T>(this AsyncDispatcher<T> dispatcher) =>
        dispatcher.Wait is ParkingWaitStrategy parking && parking.Parking.IsParked;
}
