using LowLatencyLog.Capture;
using LowLatencyLog.Files;

namespace LowLatencyLog.Forwarding;

/// <summary>
/// A child appender of this library that can take an async appender's captured events as they are, so the worker does
/// not build a log4net event for each of them.
/// </summary>
internal interface ICapturedEventAppender
{
    /// <summary>
    /// Where the worker hands each batch (<see cref="IBatchTarget{TEvent}.TryAppend"/>, which says per batch whether it
    /// takes it); null when the appender always needs log4net events (a subclass). The same object for the appender's
    /// life: the worker asks it only when the children change.
    /// </summary>
    IBatchTarget<CapturedEvent>? Target { get; }

    /// <summary>
    /// Whether the appender may need log4net events with the original message and exception objects (it takes rebuilt
    /// events: a filter, a layout it does not compile, a subclass); false when it writes captured events as they are,
    /// so the async appender need not keep the callers' objects in its buffer for it.
    /// </summary>
    bool MayReadEventObjects { get; }
}
