using System;

namespace LowLatencyLog.Core;

/// <summary>
/// What the worker delivers to: for the appenders, the attached child appenders. Called only from the worker thread,
/// never while a lock that producers need is held.
/// </summary>
internal interface IBatchSink<T>
    where T : class
{
    /// <summary>Delivers a batch; never empty. The array belongs to the sink.</summary>
    void Deliver(T[] events);

    /// <summary>End of a batch: the queue ran empty, or a <c>Flush</c> reached the worker.</summary>
    void Flush();

    /// <summary>The worker caught up after producers discarded events.</summary>
    void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded);

    /// <summary>Last call: flush and close whatever the sink owns.</summary>
    void Close();

    /// <summary>A failure to report (through the appender's <c>ErrorHandler</c>); must not throw.</summary>
    void ReportError(string message, Exception? exception);
}
