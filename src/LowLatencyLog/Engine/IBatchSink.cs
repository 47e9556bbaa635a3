using System;

namespace LowLatencyLog.Engine;

/// <summary>
/// What the worker delivers to: for the appenders, the attached child appenders. Every member but
/// <see cref="ReportError"/> is called only from the worker thread, never while a lock that producers need is held.
/// </summary>
internal interface IBatchSink<T>
{
    /// <summary>Delivers <paramref name="count"/> items (never 0) from the start of <paramref name="items"/>.</summary>
    /// <remarks>The array is the worker's and is reused after the call: copy what must outlive it. Fault isolation
    /// between children is the sink's job: one child that throws must not cost the others the rest of the batch. An
    /// exception that escapes is reported by the dispatcher and the batch counts as delivered.</remarks>
    void Deliver(T[] items, int count);

    /// <summary>End of a batch: the queue ran empty, or a <c>Flush</c> reached the worker.</summary>
    /// <param name="timeoutMilliseconds">How long the flush may take (what is left of a caller's <c>Flush</c> timeout, or
    /// <see cref="System.Threading.Timeout.Infinite"/> for an end-of-batch flush).</param>
    /// <returns>True when everything delivered so far was flushed; false if any part failed (the sink reports why).
    /// The dispatcher flushes again at the next opportunity after a failure.</returns>
    bool Flush(int timeoutMilliseconds);

    /// <summary>The worker caught up after producers discarded events.</summary>
    void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded);

    /// <summary>Last call: flush and close whatever the sink owns.</summary>
    void Close();

    /// <summary>A failure to report (through the appender's <c>ErrorHandler</c>).</summary>
    /// <remarks>
    /// Called from any thread: the worker, a producer (an event refused after close) or the thread in <c>Close</c>
    /// (timeout) while the worker may be stuck inside a child. It must be thread-safe, must not throw, and must not
    /// wait for anything a child holds.
    /// </remarks>
    void ReportError(string message, Exception? exception);
}
