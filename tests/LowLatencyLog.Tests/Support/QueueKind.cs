using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine;

namespace LowLatencyLog.Tests.Support;

/// <summary>One queue technique under the shared dispatcher; the contract suite runs once per kind.</summary>
public sealed class QueueKind
{
    private QueueKind(string name, IQueueFactory factory)
    {
        Name = name;
        Factory = factory;
    }

    /// <summary>Every queue the dispatcher can run on. New queues are added here and nowhere else.</summary>
    public static QueueKind[] All { get; } =
    {
        new QueueKind("BoundedQueue", BoundedQueueFactory.Instance),
        new QueueKind("HotSwapQueue", HotSwapQueueFactory.Instance),
        new QueueKind("DisruptorQueue", DisruptorQueueFactory.Multi),
    };

    public string Name { get; }

    public bool SupportsGrow => Factory.SupportsGrow;

    /// <summary>
    /// How many items fit while the worker holds a batch it took from an otherwise empty queue of this capacity: a ring
    /// frees a slot as soon as it is drained; the hot-swap queue's draining buffer is not free until the next swap.
    /// </summary>
    public int RoomWhileWorkerHoldsABatch(int capacity) => Name == "HotSwapQueue" ? capacity / 2 : capacity;

    internal IQueueFactory Factory { get; }

    public override string ToString() => Name;
}
