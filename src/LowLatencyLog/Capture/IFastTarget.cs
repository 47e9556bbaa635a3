using log4net.Core;

namespace LowLatencyLog.Capture;

/// <summary>An appender an intercepted call can write into directly, without a <see cref="LoggingEvent"/>.</summary>
internal interface IFastTarget
{
    /// <summary>Whether the appender takes <see cref="FastCall"/>s now, which fields it captures then (only
    /// <see cref="CapturedEvent.SlotFlags"/> and the caller's location), and whether some child may read the message and
    /// exception objects (the call must then carry the message object log4net would have made). Read on every call:
    /// cheap, and never stale.</summary>
    bool TakesFastCalls(out FixFlags capture, out bool objects);

    /// <summary>Takes the call as <c>DoAppend</c> takes an event (threshold, re-entrancy guard, capture, queue), with
    /// <paramref name="caller"/> the confirmed call site when some appender on the route captures the location. Never
    /// throws.</summary>
    void AppendFast(in FastCall call, CallerLocation? caller);
}
