namespace LowLatencyLog.Engine.Waiting;

/// <summary>What the worker looks at to decide that it has work: events claimed, a close, a flush request.</summary>
internal interface IWorkSignal
{
    /// <summary>Read by the worker only; every read must be at least an acquire read.</summary>
    bool HasWork { get; }
}
