namespace LowLatencyLog.Tests.Support;

/// <summary>An event that says who sent it and in which order.</summary>
internal sealed class TestEvent
{
    public TestEvent(int producer, int sequence)
    {
        Producer = producer;
        Sequence = sequence;
    }

    public int Producer { get; }

    public int Sequence { get; }

    public override string ToString() => $"{Producer}:{Sequence}";
}
