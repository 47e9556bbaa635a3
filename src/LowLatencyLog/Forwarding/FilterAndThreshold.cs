using System.Runtime.CompilerServices;
using log4net.Core;
using log4net.Filter;

namespace LowLatencyLog.Forwarding;

/// <summary>The threshold and the filter chain as one immutable snapshot, so a producer reads one field.</summary>
internal sealed class FilterAndThreshold
{
    public static readonly FilterAndThreshold Empty = new FilterAndThreshold(null, null, null);

    public FilterAndThreshold(Level? threshold, IFilter? head, IFilter? tail)
    {
        Threshold = threshold;
        Head = head;
        Tail = tail;
    }

    public Level? Threshold { get; }

    public IFilter? Head { get; }

    public IFilter? Tail { get; }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Admits(LoggingEvent loggingEvent)
    {
        Level? threshold = Threshold;
        if (threshold != null && (loggingEvent.Level == null || loggingEvent.Level.Value < threshold.Value))
        {
            return false;
        }

        return Head == null || FilterChainAdmits(loggingEvent);
    }

    private bool FilterChainAdmits(LoggingEvent loggingEvent)
    {
        for (IFilter? filter = Head; filter != null; filter = filter.Next)
        {
            switch (filter.Decide(loggingEvent))
            {
                case FilterDecision.Deny:
                    return false;
                case FilterDecision.Accept:
                    return true;
            }
        }

        return true;
    }
}
