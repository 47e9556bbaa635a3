using System.Runtime.CompilerServices;
using System.Threading;
using LowLatencyLog.Forwarding;

namespace LowLatencyLog.Appender;

// AsyncForwardingAppender, continued: the calling threads' side of log4net's AppenderSkeleton recursive guard
// (Forwarding/ReentrancyGuard; the worker's side is in ChildrenSink).
public abstract partial class AsyncForwardingAppender
{
    private long _reentrant;

    /// <summary>Log calls into this appender made on a thread while it took an event on that thread (an argument's
    /// <c>ToString()</c> or a filter that logs), or made by a child while the worker delivered to it: not taken, as
    /// log4net's own appenders drop them.</summary>
    public long ReentrantCount => Interlocked.Read(ref _reentrant);

    /// <summary>Marks this appender as taking an event on this thread; false (and counted) when it is taking one already
    /// (a re-entrant call, dropped as <c>AppenderSkeleton</c> drops it). The caller clears the mark in a <c>finally</c>
    /// (<c>taking[depth] = null; thread.Depth = depth</c>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryTake(out ReentrancyGuard thread, out int depth, out object?[] taking)
    {
        thread = ReentrancyGuard.Current;
        depth = thread.Depth;
        taking = thread.Appenders;
        if (depth != 0 && ReentrancyGuard.Contains(taking, depth, this))
        {
            CountReentrant();
            return false;
        }

        if (depth >= taking.Length)
        {
            taking = thread.Grow();
        }

        taking[depth] = this;
        thread.Depth = depth + 1;
        return true;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void CountReentrant() => Interlocked.Increment(ref _reentrant);
}
