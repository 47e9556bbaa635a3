namespace LowLatencyLog.Core;

/// <summary>Creates <see cref="DisruptorQueue{T}"/> for one producer type. The ring never grows.</summary>
internal sealed class DisruptorQueueFactory : IQueueFactory
{
    public static readonly DisruptorQueueFactory Multi = new DisruptorQueueFactory(ProducerType.Multi);

    public static readonly DisruptorQueueFactory Single = new DisruptorQueueFactory(ProducerType.Single);

    private DisruptorQueueFactory(ProducerType producerType)
    {
        ProducerType = producerType;
    }

    public ProducerType ProducerType { get; }

    public bool SupportsGrow => false;

    public bool RequiresPowerOfTwo => true;

    public static DisruptorQueueFactory For(ProducerType producerType) =>
        producerType == ProducerType.Single ? Single : Multi;

    public IEventQueue<T> Create<T>(int capacity, bool grow)
    {
        if (grow)
        {
            throw new System.ArgumentException("The Disruptor ring does not grow.", nameof(grow));
        }

        return new DisruptorQueue<T>(capacity, ProducerType);
    }
}
