using System;

namespace LowLatencyLog.Engine.Disruptor;

/// <summary>Creates <see cref="DisruptorQueue{T}"/> for one producer type. The ring never grows.</summary>
internal sealed class DisruptorQueueFactory : IQueueFactory
{
    public static readonly DisruptorQueueFactory Multi = new DisruptorQueueFactory(ProducerType.Multi, null);

    public static readonly DisruptorQueueFactory Single = new DisruptorQueueFactory(ProducerType.Single, null);

    private readonly Action<string>? _reportError;

    /// <param name="producerType">The claim the rings use.</param>
    /// <param name="reportError">Where a ring reports a misused <see cref="ProducerType.Single"/> besides the sink
    /// (the appender passes log4net's internal log); the dispatcher adds the sink's channel.</param>
    public DisruptorQueueFactory(ProducerType producerType, Action<string>? reportError)
    {
        ProducerType = producerType;
        _reportError = reportError;
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
            throw new ArgumentException("The Disruptor ring does not grow.", nameof(grow));
        }

        return new DisruptorQueue<T>(capacity, ProducerType) { ReportError = _reportError };
    }
}
