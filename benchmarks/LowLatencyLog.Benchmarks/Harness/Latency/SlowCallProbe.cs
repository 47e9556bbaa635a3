using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.InteropServices;

namespace LowLatencyLog.Benchmarks.Latency;

/// <summary>
/// <c>LLL_SLOW_CALLS=1</c>: for every call slower than a millisecond, what happened to the calling thread during it
/// (Linux only): involuntary context switches (preempted by another thread), voluntary ones (it blocked), page
/// faults, and collections. A slow call with none of them was slow inside the call itself.
/// </summary>
internal sealed class SlowCallProbe
{
    public static readonly bool Enabled = Environment.GetEnvironmentVariable("LLL_SLOW_CALLS") == "1" && RuntimeInformation.IsOSPlatform(OSPlatform.Linux);

    private const int RusageThread = 1;
    private const int MinorFaults = 8, MajorFaults = 9, Voluntary = 16, Involuntary = 17; // longs into struct rusage

    private static readonly long OneMillisecond = Stopwatch.Frequency / 1000;
    private readonly long[] _before = new long[18];
    private readonly long[] _after = new long[18];
    private int _gcBefore;

    public List<string> SlowCalls { get; } = new List<string>();

    public void Before()
    {
        getrusage(RusageThread, _before);
        _gcBefore = GC.CollectionCount(0);
    }

    public void After(long index, long startTicks, long endTicks)
    {
        if (endTicks - startTicks < OneMillisecond)
        {
            return;
        }

        getrusage(RusageThread, _after);
        SlowCalls.Add(string.Format(System.Globalization.CultureInfo.InvariantCulture,
            "call {0}: {1:F0} µs; preempted {2}, blocked {3}, faults {4} minor {5} major, gen0 {6}",
            index, (endTicks - startTicks) * 1e6 / Stopwatch.Frequency,
            _after[Involuntary] - _before[Involuntary], _after[Voluntary] - _before[Voluntary],
            _after[MinorFaults] - _before[MinorFaults], _after[MajorFaults] - _before[MajorFaults],
            GC.CollectionCount(0) - _gcBefore));
    }

    [DllImport("libc", SetLastError = false)]
    private static extern int getrusage(int who, long[] usage);
}
