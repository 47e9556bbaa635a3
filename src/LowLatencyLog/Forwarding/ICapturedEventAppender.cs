using LowLatencyLog.Capture;

namespace LowLatencyLog.Forwarding;

/// <summary>
/// A child appender of this library that can take an async appender's captured events as they are, so the worker does
/// not build a log4net event for each of them.
/// </summary>
internal interface ICapturedEventAppender
{
    /// <summary>
    /// Worker thread. Appends the batch as <c>AppenderSkeleton.DoAppend(LoggingEvent[])</c> would append the events the
    /// async appender rebuilds from it (same threshold, same text, same errors) and returns true; or does nothing and
    /// returns false when it needs log4net events (filters, a layout it does not compile, a subclass). What it buffers
    /// may stay buffered until the caller flushes it, which the worker does whenever its queue runs empty.
    /// </summary>
    bool TryAppend(CapturedEvent[] items, int count);

    /// <summary>
    /// Whether the appender may need log4net events with the original message and exception objects (it takes rebuilt
    /// events: a filter, a layout it does not compile, a subclass); false when it writes captured events as they are,
    /// so the async appender need not keep the callers' objects in its buffer for it.
    /// </summary>
    bool MayReadEventObjects { get; }
}
