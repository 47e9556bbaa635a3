namespace LowLatencyLog.Engine;

/// <summary>
/// The narrow seam between the shared dispatcher and one queue technique: many producers, one consumer (the worker).
/// Items are copied into pre-allocated slots, so a value-type item costs the producer no allocation.
/// Everything else (waiting for room, discards, waking the worker, flushes, shutdown) lives in
/// <see cref="AsyncDispatcher{T}"/>.
/// </summary>
/// <remarks>
/// <para>Contract the dispatcher relies on:</para>
/// <list type="bullet">
/// <item>Items from one producer are drained in the order that producer enqueued them.</item>
/// <item>After <see cref="Close"/> every later <see cref="TryEnqueue"/> returns <see cref="EnqueueResult.Closed"/>; items
/// claimed before it are still drained, and <see cref="IsCompleted"/> becomes true once they all have been.</item>
/// <item><see cref="Drain"/> clears the slots it takes, so the queue keeps no references to delivered items.</item>
/// <item><see cref="EnqueuedCount"/> counts every item whose <see cref="TryEnqueue"/> returned
/// <see cref="EnqueueResult.Enqueued"/> before the read; the dispatcher's <c>Flush</c> waits until that many have been
/// drained.</item>
/// <item>Whether the claim is a full fence (<see cref="ClaimIsFullFence"/>) matters to the wait strategy: a producer
/// that signals a sleeping worker must order its publication before its read of the worker's flag.</item>
/// </list>
/// <para>The predicates, from the worker's point of view:</para>
/// <list type="table">
/// <item><term><see cref="HasPending"/></term><description>some item has been claimed (maybe not yet published) and not
/// drained: worth looking again before sleeping.</description></item>
/// <item><term><see cref="IsClosed"/></term><description><see cref="Close"/> was called (any thread).</description></item>
/// <item><term><see cref="IsCompleted"/></term><description>closed, and everything claimed before the close is drained:
/// the worker may finish.</description></item>
/// </list>
/// </remarks>
internal interface IEventQueue<T>
{
    /// <summary>Capacity in items: the most the queue holds at once (for a growing queue, before it grows).</summary>
    int Capacity { get; }

    /// <summary>Approximate number of items claimed and not yet drained; any thread.</summary>
    long Count { get; }

    /// <summary>Any thread, cold path: items accepted so far (see the contract above).</summary>
    long EnqueuedCount { get; }

    /// <summary>True when a successful claim is an interlocked (full-fence) operation.</summary>
    bool ClaimIsFullFence { get; }

    /// <summary>Producer side. Never blocks; a growing queue never returns <see cref="EnqueueResult.Full"/>.</summary>
    EnqueueResult TryEnqueue(in T item);

    /// <summary>Worker only. Moves up to <c>buffer.Length</c> published items, in order, into <paramref name="buffer"/>.</summary>
    /// <returns>How many were moved; 0 when empty or when the next item is claimed but still being written.</returns>
    int Drain(T[] buffer);

    /// <summary>Worker only. Whether the last <see cref="Drain"/> made room for producers waiting on a full queue.</summary>
    /// <remarks>A ring frees slots as it drains; the hot-swap queue frees room only when it swaps buffers.</remarks>
    bool LastDrainFreedRoom { get; }

    /// <summary>Worker only. True when an item has been claimed (or a segment linked) that has not been drained.</summary>
    bool HasPending { get; }

    /// <summary>True once <see cref="Close"/> has been called.</summary>
    bool IsClosed { get; }

    /// <summary>Worker only. Closed, and every item claimed before the close has been drained.</summary>
    bool IsCompleted { get; }

    /// <summary>Any thread, idempotent. Stops accepting items.</summary>
    void Close();
}

/// <summary>Optional, for a queue that detects a misuse on the producer side and must report it (through the sink).</summary>
internal interface IReportingQueue
{
    /// <summary>Set before any producer runs (the factory may set one; the dispatcher adds the sink's); called from any
    /// thread, at most a few times.</summary>
    System.Action<string>? ReportError { get; set; }
}

/// <summary>Optional, for a queue that binds itself to its first producer thread (a single-producer ring).</summary>
internal interface IProducerBoundQueue
{
    /// <summary>
    /// Unbinds the calling thread if it is the bound producer, so the next thread to enqueue becomes the producer. Only
    /// while no other thread can enqueue: the appender calls it after the activating thread queued the events that
    /// arrived before activation, and before it lets the application's threads at the queue.
    /// </summary>
    void ReleaseProducer();
}
