using System;
using System.Runtime.CompilerServices;
using System.Threading;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine;

namespace LowLatencyLog.Appender;

// AsyncForwardingAppender, continued: log4net's AppenderSkeleton recursive guard, kept per thread (calling threads are
// not serialized here), on the calling threads and on the worker while it delivers.
public abstract partial class AsyncForwardingAppender
{
    // The async appenders taking an event, or delivering a batch, on this thread, outermost first.
    [ThreadStatic]
    private static TakingOnThread? t_taking;

    private long _reentrant;

    /// <summary>Log calls into this appender made on a thread while it took an event on that thread (an argument's
    /// <c>ToString()</c> or a filter that logs), or made by a child while the worker delivered to it: not taken, as
    /// log4net's own appenders drop them.</summary>
    public long ReentrantCount => Interlocked.Read(ref _reentrant);

    /// <summary>Marks this appender as taking an event on this thread; false (and counted) when it is taking one already
    /// (a re-entrant call, dropped as <c>AppenderSkeleton</c> drops it). The caller clears the mark in a <c>finally</c>
    /// (<c>taking[depth] = null; thread.Depth = depth</c>).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryTake(out TakingOnThread thread, out int depth, out AsyncForwardingAppender?[] taking)
    {
        thread = t_taking ?? TakingOnThread.Create();
        depth = thread.Depth;
        taking = thread.Appenders;
        if (depth != 0 && IsTakingOnThisThread(taking, depth))
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
    private bool IsTakingOnThisThread(AsyncForwardingAppender?[] taking, int depth)
    {
        for (int i = 0; i < depth; i++)
        {
            if (ReferenceEquals(taking[i], this))
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>One thread's guard: the appenders taking an event on it, outermost first, one object so that a take
    /// reads one thread-static field and its <c>finally</c> none.</summary>
    private sealed class TakingOnThread
    {
        internal AsyncForwardingAppender?[] Appenders = new AsyncForwardingAppender?[4];
        internal int Depth;

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal static TakingOnThread Create() => t_taking = new TakingOnThread();

        [MethodImpl(MethodImplOptions.NoInlining)]
        internal AsyncForwardingAppender?[] Grow()
        {
            var larger = new AsyncForwardingAppender?[2 * (Depth + 1)];
            Appenders.CopyTo(larger, 0);
            return Appenders = larger;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void CountReentrant() => Interlocked.Increment(ref _reentrant);

    /// <summary>
    /// The worker's side of the guard: while it hands events to the children, a call a child makes into this same
    /// appender (a layout rendering a property value that logs, a child that logs its own trouble) is dropped and
    /// counted, as log4net's forwarding appender drops it on the thread that renders; a call into another appender is
    /// taken. Without it such a call would be queued behind the batch and rendered again (a value in the global context
    /// that logs would feed itself for good). Flushes and the close are not guarded, as in log4net.
    /// </summary>
    private sealed class GuardedSink : IBatchSink<CapturedEvent>
    {
        private readonly AsyncForwardingAppender _owner;
        private readonly IBatchSink<CapturedEvent> _inner;

        public GuardedSink(AsyncForwardingAppender owner, IBatchSink<CapturedEvent> inner)
        {
            _owner = owner;
            _inner = inner;
        }

        public void Deliver(CapturedEvent[] items, int count)
        {
            int depth = _owner.Enter();
            try
            {
                _inner.Deliver(items, count);
            }
            finally
            {
                Exit(depth);
            }
        }

        public void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded)
        {
            int depth = _owner.Enter();
            try
            {
                _inner.ReportDiscarded(discardedSinceLastReport, totalDiscarded);
            }
            finally
            {
                Exit(depth);
            }
        }

        public bool Flush(int timeoutMilliseconds) => _inner.Flush(timeoutMilliseconds);

        public void Close() => _inner.Close();

        public void ReportError(string message, Exception? exception) => _inner.ReportError(message, exception);
    }

    private int Enter()
    {
        TakingOnThread thread = t_taking ?? TakingOnThread.Create();
        int depth = thread.Depth;
        (depth < thread.Appenders.Length ? thread.Appenders : thread.Grow())[depth] = this;
        thread.Depth = depth + 1;
        return depth;
    }

    private static void Exit(int depth)
    {
        TakingOnThread thread = t_taking!;
        thread.Appenders[depth] = null;
        thread.Depth = depth;
    }
}
