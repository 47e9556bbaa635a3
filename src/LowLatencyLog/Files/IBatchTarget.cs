namespace LowLatencyLog.Files;

/// <summary>
/// Where an async appender's worker hands a batch of events it does not rebuild for a child: the file appenders'
/// <see cref="FileBatchTarget{TEvent, TRenderer, TRenderers}"/>, given to the worker once by the appender it writes for.
/// </summary>
/// <typeparam name="TEvent">The events of a batch (the async appenders' captured slots).</typeparam>
internal interface IBatchTarget<TEvent>
{
    /// <summary>
    /// Worker thread. Appends the batch as <c>AppenderSkeleton.DoAppend(LoggingEvent[])</c> would append the events
    /// rebuilt from it (same threshold, same text, same errors) and returns true; or does nothing and returns false when
    /// the appender needs log4net events (a filter, a layout that is not compiled). What it buffers may stay buffered
    /// until the worker flushes, which it does whenever its queue runs empty.
    /// </summary>
    bool TryAppend(TEvent[] items, int count);
}
