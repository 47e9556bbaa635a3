namespace LowLatencyLog.Core;

/// <summary>
/// The narrow seam between the shared dispatcher and one queue technique: many producers, one consumer (the worker).
/// Items are copied into pre-allocated slots, so a value-type item costs the producer no allocation.
/// Everything else (waiting for room, discards, waking the worker, flush markers, shutdown) lives in
/// <see cref="AsyncDispatcher{T}"/>.
/// </summary>
/// <remarks>
/// Contract the dispatcher relies on:
/// <list type="bullet">
/// <item>Items from one producer are drained in the order that producer enqueued them.</item>
/// <item><see cref="TryEnqueue"/> claims its place with an interlocked (full-fence) operation before it returns
/// <see cref="EnqueueResult.Enqueued"/>, and <see cref="HasPending"/> reads that claim, not the later publication.
/// The worker's sleep protocol depends on this (see <see cref="AsyncDispatcher{T}"/>).</item>
/// <item>After <see cref="Close"/> every later <see cref="TryEnqueue"/> returns <see cref="EnqueueResult.Closed"/>; items
/// claimed before it are still drained, and <see cref="IsCompleted"/> becomes true once they all have been.</item>
/// <item><see cref="Drain"/> clears the slots it takes, so the queue keeps no references to delivered items.</item>
/// </list>
/// </remarks>
internal interface IEventQueue<T>
{
    /// <summary>Capacity in items (for a growing queue, before it grows).</summary>
    int Capacity { get; }

    /// <summary>Approximate number of items claimed and not yet drained; any thread.</summary>
    long Count { get; }

    /// <summary>Producer side. Never blocks; a growing queue never returns <see cref="EnqueueResult.Full"/>.</summary>
    EnqueueResult TryEnqueue(in T item);

    /// <summary>Worker only. Moves up to <c>buffer.Length</c> published items, in order, into <paramref name="buffer"/>.</summary>
    /// <returns>How many were moved; 0 when empty or when the next item is claimed but still being written.</returns>
    int Drain(T[] buffer);

    /// <summary>Worker only. True when an item has been claimed (or a segment linked) that has not been drained.</summary>
    bool HasPending { get; }

    /// <summary>True once <see cref="Close"/> has been called.</summary>
    bool IsClosed { get; }

    /// <summary>Worker only. Closed, and every item claimed before the close has been drained.</summary>
    bool IsCompleted { get; }

    /// <summary>Any thread, idempotent. Stops accepting items.</summary>
    void Close();
}

/// <summary>Creates one kind of queue; each async appender contributes one of these and nothing else.</summary>
internal interface IQueueFactory
{
    /// <summary>Whether the queue supports <see cref="OverflowAction.Grow"/>.</summary>
    bool SupportsGrow { get; }

    IEventQueue<T> Create<T>(int capacity, bool grow);
}

/// <summary>Creates <see cref="BoundedQueue{T}"/>.</summary>
internal sealed class BoundedQueueFactory : IQueueFactory
{
    public static readonly BoundedQueueFactory Instance = new BoundedQueueFactory();

    public bool SupportsGrow => true;

    public IEventQueue<T> Create<T>(int capacity, bool grow) => new BoundedQueue<T>(capacity, grow);
}

/// <summary>Creates <see cref="HotSwapQueue{T}"/>.</summary>
internal sealed class HotSwapQueueFactory : IQueueFactory
{
    public static readonly HotSwapQueueFactory Instance = new HotSwapQueueFactory();

    public bool SupportsGrow => true;

    public IEventQueue<T> Create<T>(int capacity, bool grow) => new HotSwapQueue<T>(capacity, grow);
}
