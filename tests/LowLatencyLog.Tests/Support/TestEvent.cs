namespace LowLatencyLog.Tests.Support;

/// <summary>
/// An event that says who sent it and in which order: a struct about the size of the appenders' capture (72 bytes), so
/// the queues move multi-word values as they do in production, with a checksum that shows a torn copy.
/// </summary>
internal readonly struct TestEvent
{
    private readonly long _a;
    private readonly long _b;
    private readonly long _c;
    private readonly long _d;
    private readonly long _e;
    private readonly long _f;
    private readonly long _g;
    private readonly long _checksum;

    public TestEvent(int producer, int sequence)
    {
        Producer = producer;
        Sequence = sequence;
        long seed = ((long)producer << 32) ^ (uint)sequence;
        _a = seed * 3;
        _b = seed * 5;
        _c = seed * 7;
        _d = seed * 11;
        _e = seed * 13;
        _f = seed * 17;
        _g = seed * 19;
        _checksum = Sum(producer, sequence, _a, _b, _c, _d, _e, _f, _g);
    }

    public int Producer { get; }

    public int Sequence { get; }

    /// <summary>False when the fields do not belong together: a copy raced with a write.</summary>
    public bool IsIntact => _checksum == Sum(Producer, Sequence, _a, _b, _c, _d, _e, _f, _g) && _a == (((long)Producer << 32) ^ (uint)Sequence) * 3;

    public override string ToString() => $"({Producer}, {Sequence})";

    private static long Sum(int producer, int sequence, long a, long b, long c, long d, long e, long f, long g) =>
        (((((((producer * 31L + sequence) * 131 + a) * 131 + b) * 131 + c) * 131 + d) * 131 + e) * 131 + f) * 131 + g;
}
