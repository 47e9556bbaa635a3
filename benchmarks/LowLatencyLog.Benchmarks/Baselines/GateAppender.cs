using System.Threading;
using log4net.Appender;
using log4net.Core;

namespace LowLatencyLog.Benchmarks.Baselines;

/// <summary>
/// A child that holds whoever calls it while <see cref="Open"/> is reset: behind an async appender it stops the
/// worker, so the buffer fills and stays full (a disk that stopped).
/// </summary>
public sealed class GateAppender : AppenderSkeleton
{
    /// <summary>Set: calls pass; reset: they wait. One gate for the process (one gated case runs at a time).</summary>
    public static ManualResetEventSlim Open { get; } = new(initialState: true);

    /// <summary>Set while a call waits at the gate.</summary>
    public static ManualResetEventSlim Waiting { get; } = new(initialState: false);

    protected override void Append(LoggingEvent loggingEvent) => Pass();

    protected override void Append(LoggingEvent[] loggingEvents) => Pass();

    private static void Pass()
    {
        if (!Open.IsSet)
        {
            Waiting.Set();
            Open.Wait();
        }
    }
}
