using System;
using LowLatencyLog.Core;

namespace LowLatencyLog.Tests.Support;

/// <summary>One queue technique under the shared dispatcher; the contract suite runs once per kind.</summary>
public sealed class QueueKind
{
    private readonly Func<int, OverflowAction, IEventQueue> _create;

    private QueueKind(string name, bool supportsGrow, Func<int, OverflowAction, IEventQueue> create)
    {
        Name = name;
        SupportsGrow = supportsGrow;
        _create = create;
    }

    /// <summary>Every queue the dispatcher can run on. New queues are added here and nowhere else.</summary>
    public static QueueKind[] All { get; } =
    {
        new QueueKind("BoundedQueue", supportsGrow: true, (capacity, overflow) => new BoundedQueue(capacity, overflow == OverflowAction.Grow)),
        new QueueKind("HotSwapQueue", supportsGrow: true, (capacity, overflow) => new HotSwapQueue(capacity, overflow == OverflowAction.Grow)),
    };

    public string Name { get; }

    public bool SupportsGrow { get; }

    internal IEventQueue Create(int capacity, OverflowAction overflow) => _create(capacity, overflow);

    public override string ToString() => Name;
}
