namespace LowLatencyLog.Engine;

/// <summary>Creates one kind of queue; each async appender contributes one of these and nothing else.</summary>
internal interface IQueueFactory
{
    /// <summary>Whether the queue supports <see cref="OverflowAction.Grow"/>.</summary>
    bool SupportsGrow { get; }

    /// <summary>Whether the capacity must be a power of two; otherwise any positive capacity is accepted as given.</summary>
    /// <remarks>The appender validates the <c>bufferSize</c> setting with this before it builds the dispatcher.</remarks>
    bool RequiresPowerOfTwo { get; }

    IEventQueue<T> Create<T>(int capacity, bool grow);
}

/// <summary>Creates <see cref="BoundedQueue{T}"/>.</summary>
internal sealed class BoundedQueueFactory : IQueueFactory
{
    public static readonly BoundedQueueFactory Instance = new BoundedQueueFactory();

    public bool SupportsGrow => true;

    public bool RequiresPowerOfTwo => false;

    public IEventQueue<T> Create<T>(int capacity, bool grow) => new BoundedQueue<T>(capacity, grow);
}

/// <summary>Creates <see cref="HotSwapQueue{T}"/>.</summary>
internal sealed class HotSwapQueueFactory : IQueueFactory
{
    public static readonly HotSwapQueueFactory Instance = new HotSwapQueueFactory();

    public bool SupportsGrow => true;

    public bool RequiresPowerOfTwo => false;

    public IEventQueue<T> Create<T>(int capacity, bool grow) => new HotSwapQueue<T>(capacity, grow);
}
