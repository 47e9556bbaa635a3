namespace LowLatencyLog.Benchmarks;

/// <summary>
/// The queue benchmarks' payload: a 72-byte struct, about the size of the appenders' capture of a log4net event
/// (a handful of references and a timestamp), so the queues copy what they copy in production rather than one reference.
/// </summary>
public readonly struct BenchEvent
{
    public readonly long A;
    public readonly long B;
    public readonly long C;
    public readonly long D;
    public readonly long E;
    public readonly long F;
    public readonly long G;
    public readonly long H;
    public readonly long I;

    public BenchEvent(long seed)
    {
        A = seed;
        B = seed + 1;
        C = seed + 2;
        D = seed + 3;
        E = seed + 4;
        F = seed + 5;
        G = seed + 6;
        H = seed + 7;
        I = seed + 8;
    }
}
