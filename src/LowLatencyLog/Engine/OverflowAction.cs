namespace LowLatencyLog.Engine;

/// <summary>What a producer does when the buffer is full (the <c>overflow</c> setting).</summary>
internal enum OverflowAction
{
    /// <summary>Wait for room: spin briefly, then sleep until the worker frees slots.</summary>
    Block,

    /// <summary>Drop discardable events and count them; others wait as with <see cref="Block"/>.</summary>
    Discard,

    /// <summary>Never full: allocate more room. Memory is bounded only by what the worker can drain.</summary>
    Grow,
}

/// <summary>Outcome of one attempt to put an item in a queue.</summary>
internal enum EnqueueResult
{
    Enqueued,
    Full,
    Closed,
}
