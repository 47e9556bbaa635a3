using System.Collections.Generic;
using System.IO;
using System.Threading;
using log4net.Appender;
using log4net.Core;
using LowLatencyLog.Capture;
using LowLatencyLog.Files;
using LowLatencyLog.Forwarding;

namespace LowLatencyLog.Appender;

/// <summary>
/// Counts the events it receives and does nothing else: a baseline for benchmarks and tests. With a layout set it also
/// renders each event into a buffer that is thrown away, to measure the layout's cost.
/// </summary>
/// <remarks>
/// It derives from log4net's <see cref="AppenderSkeleton"/> like any ordinary appender (threshold, filters, error
/// handler, and its per-event lock), so it measures what log4net itself costs. Batches delivered through
/// <see cref="IBulkAppender"/> are counted once per event. Behind one of this library's async appenders, with no layout
/// and no filter, it counts the captured events as they are (no log4net event is rebuilt for it), so that it measures
/// the async mechanism alone.
/// </remarks>
public sealed class NullAppender : AppenderSkeleton, ICapturedEventAppender, IBatchTarget<CapturedEvent>
{
    private readonly StringWriter _discarded = new StringWriter(System.Globalization.CultureInfo.InvariantCulture);
    private long _count;
    private bool _closed;

    /// <summary>Events received (after threshold and filters), single and in batches.</summary>
    public long Count => Interlocked.Read(ref _count);

    /// <summary>Whether a layout is required: no; without one nothing is rendered.</summary>
    protected override bool RequiresLayout => false;

    /// <summary>Counts one event, rendering it when a layout is set.</summary>
    /// <param name="loggingEvent">The event.</param>
    protected override void Append(LoggingEvent loggingEvent)
    {
        Render(loggingEvent);
        Interlocked.Increment(ref _count);
    }

    /// <summary>Counts a batch (log4net 3.5 routes <c>DoAppend(LoggingEvent[])</c> here).</summary>
    /// <param name="loggingEvents">The events.</param>
    protected override void Append(IEnumerable<LoggingEvent> loggingEvents)
    {
        long count = 0;
        foreach (LoggingEvent loggingEvent in loggingEvents)
        {
            Render(loggingEvent);
            count++;
        }

        Interlocked.Add(ref _count, count);
    }

    /// <summary>Counts a batch.</summary>
    /// <param name="loggingEvents">The events.</param>
    protected override void Append(LoggingEvent[] loggingEvents) => Append((IEnumerable<LoggingEvent>)loggingEvents);

    /// <summary>Notes that the appender is closed, as <c>AppenderSkeleton</c> does.</summary>
    protected override void OnClose()
    {
        _closed = true;
        base.OnClose();
    }

    /// <inheritdoc/>
    /// <remarks>Counts as <c>DoAppend(LoggingEvent[])</c> would (threshold, closed check); with a layout or a filter,
    /// which need log4net events, the async appender rebuilds them instead.</remarks>
    bool ICapturedEventAppender.MayReadEventObjects => Layout != null || FilterHead != null;

    /// <inheritdoc/>
    IBatchTarget<CapturedEvent> ICapturedEventAppender.Target => this;

    /// <inheritdoc/>
    /// <remarks>Counts as <c>DoAppend(LoggingEvent[])</c> would (threshold, closed check).</remarks>
    bool IBatchTarget<CapturedEvent>.TryAppend(CapturedEvent[] items, int count)
    {
        if (Layout != null || FilterHead != null)
        {
            return false;
        }

        lock (LockObj)
        {
            if (_closed)
            {
                ErrorHandler.Error("Attempted to append to closed appender named [" + Name + "].");
                return true;
            }

            long passed = 0;
            for (int i = 0; i < count; i++)
            {
                if (IsAsSevereAsThreshold(items[i].Level))
                {
                    passed++;
                }
            }

            Interlocked.Add(ref _count, passed);
        }

        return true;
    }

    private void Render(LoggingEvent loggingEvent)
    {
        if (Layout == null)
        {
            return;
        }

        // Under AppenderSkeleton's lock, so one buffer serves every caller.
        RenderLoggingEvent(_discarded, loggingEvent);
        _discarded.GetStringBuilder().Clear();
    }
}
