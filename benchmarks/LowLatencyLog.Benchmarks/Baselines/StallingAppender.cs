using System.Diagnostics;
using System.Globalization;
using System.Threading;
using log4net.Appender;
using log4net.Core;

namespace LowLatencyLog.Benchmarks.Baselines;

/// <summary>
/// A child that stalls now and then, as a disk that pauses or a network appender whose server is slow: every
/// <see cref="EveryMilliseconds"/> of wall time, the next event it is given waits <see cref="StallMilliseconds"/>.
/// It writes nothing; it sits beside the file appender, so whoever calls it (the logging thread for a synchronous
/// appender, the worker behind an async one) pays the stall.
/// </summary>
public sealed class StallingAppender : AppenderSkeleton
{
    private long _nextStall;

    /// <summary>How long each stall lasts (milliseconds, as text like every log4net setting of this project).</summary>
    public string StallMilliseconds { get; set; } = "100";

    /// <summary>How often a stall starts (milliseconds).</summary>
    public string EveryMilliseconds { get; set; } = "1000";

    /// <summary>How many stalls it made.</summary>
    public int Stalls { get; private set; }

    protected override void Append(LoggingEvent loggingEvent) => MaybeStall();

    protected override void Append(LoggingEvent[] loggingEvents) => MaybeStall();

    private void MaybeStall()
    {
        long now = Stopwatch.GetTimestamp();
        if (_nextStall == 0)
        {
            _nextStall = now + Ticks(EveryMilliseconds);
        }
        else if (now >= _nextStall)
        {
            Thread.Sleep(int.Parse(StallMilliseconds, CultureInfo.InvariantCulture));
            Stalls++;
            _nextStall = Stopwatch.GetTimestamp() + Ticks(EveryMilliseconds);
        }
    }

    private static long Ticks(string milliseconds) => Stopwatch.Frequency * long.Parse(milliseconds, CultureInfo.InvariantCulture) / 1000;
}
