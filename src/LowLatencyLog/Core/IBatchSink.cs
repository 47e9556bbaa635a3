using System;

namespace LowLatencyLog.Core;

/// <summary>
/// What the worker delivers to: for the appenders, the attached child appenders. Called only from the worker thread,
/// never while a lock that producers need is held.
/// </summary>
internal interface IBatchSink<T>
{
    /// <summary>Delivers <paramref name="count"/> items (never 0) from the start of <paramref name="items"/>.</summary>
    /// <remarks>The array is the worker's and is reused after the call: copy what must outlive it.</remarks>
    void Deliver(T[] items, int count);

    /// <summary>End of a batch: the queue ran empty, or a <c>Flush</c> reached the worker.</summary>
    void Flush();

    /// <summary>The worker caught up after producers discarded events.</summary>
    void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded);

    /// <summary>Last call: flush and close whatever the sink owns.</summary>
    void Close();

    /// <summary>A failure to report (through the appender's <c>ErrorHandler</c>); must not throw.</summary>
    void ReportError(string message, Exception? exception);
}
