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
