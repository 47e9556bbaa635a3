using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;

namespace LowLatencyLog.Engine;

// AsyncDispatcher, continued: producers that find the buffer full, and the stall they may meet.
internal sealed partial class AsyncDispatcher<T>
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool EnqueueSlow(in T item, bool discardable)
    {
        EnqueueResult result;

        // Only the worker makes room, so the worker itself (a child logging back into this appender) must never wait.
        if ((_overflow == OverflowAction.Discard && discardable) || Thread.CurrentThread == _worker)
        {
            result = _queue.TryEnqueue(item);
            if (result == EnqueueResult.Full)
            {
                Interlocked.Increment(ref _discarded.Value);
                return false;
            }
        }
        else
        {
            result = EnqueueWaiting(item);
            if (result == EnqueueResult.Full)
            {
                Interlocked.Increment(ref _discarded.Value); // the worker is stalled (_stallTimeout)
                return false;
            }
        }

        if (result == EnqueueResult.Enqueued)
        {
            _wait.SignalWork();
            return true;
        }

        CountRejectedAfterClose();
        return false;
    }

    /// <summary>Counts items dropped before they reached this dispatcher; the worker reports them with its own.</summary>
    public void CountDiscarded(long count)
    {
        Interlocked.Add(ref _discarded.Value, count);
        _wait.Wake();
    }

    /// <summary>Counts items accepted elsewhere that a close could not move here in time.</summary>
    public void CountUndelivered(long count) => Interlocked.Add(ref _undelivered, count);

    private void CountRejectedAfterClose()
    {
        if (Interlocked.Increment(ref _rejectedAfterClose) == 1)
        {
            SafeReportError("Events were logged after the appender was closed; they are not delivered.", null);
        }
    }

    /// <summary>
    /// Enqueues, waiting for room while the worker makes progress; returns <see cref="EnqueueResult.Closed"/> after a
    /// close, and <see cref="EnqueueResult.Full"/> when the worker is stalled (<see cref="_stallTimeout"/>).
    /// </summary>
    private EnqueueResult EnqueueWaiting(in T item)
    {
        Debug.Assert(Thread.CurrentThread != _worker, "only the worker makes room: it never waits for it");
        // A few microseconds of spinning catch a worker that is about to free slots, without burning a core for long.
        var spinner = new SpinWait();
        while (!spinner.NextSpinWillYield)
        {
            EnqueueResult result = _queue.TryEnqueue(item);
            if (result != EnqueueResult.Full)
            {
                return result;
            }

            spinner.SpinOnce();
        }

        long progress = Interlocked.Read(ref _state.Drained);
        if (Interlocked.Read(ref _stalledAt) == progress)
        {
            return EnqueueResult.Full; // the worker is still stalled: waiting again would hold this thread for nothing
        }

        var stall = new StallWatch(this, progress);
        Interlocked.Increment(ref _blockedProducers.Value); // full fence before the retry below
        try
        {
            lock (_spaceGate)
            {
                while (true)
                {
                    EnqueueResult result = _queue.TryEnqueue(item);
                    if (result != EnqueueResult.Full)
                    {
                        return result;
                    }

                    if (stall.HasStalled())
                    {
                        return EnqueueResult.Full;
                    }

                    _wait.Wake(); // the queue is full, so the worker has work; make sure it is not asleep
                    Monitor.Wait(_spaceGate, BlockedWaitMilliseconds);
                }
            }
        }
        finally
        {
            Interlocked.Decrement(ref _blockedProducers.Value);
        }
    }

    private void MarkStalled(long progress)
    {
        if (Interlocked.Exchange(ref _stalledAt, progress) != progress)
        {
            SafeReportError(
                $"The worker has delivered nothing for at least {_stallTimeout} ms while producers waited for room: a " +
                "child appender is stuck (it waits for something, is blocked in a write to a pipe, disk or network that " +
                "does not drain, or logs back into log4net while log4net shuts down). Producers stop waiting, and " +
                "their events are discarded and counted until it moves again.",
                null);
        }
    }

    /// <summary>Worker side, after a drain that freed room.</summary>
    private void ReleaseBlockedProducers()
    {
        Thread.MemoryBarrier(); // the freed slots are visible before we read the count (pairs with the producer's increment)
        if (Volatile.Read(ref _blockedProducers.Value) != 0)
        {
            lock (_spaceGate)
            {
                Monitor.PulseAll(_spaceGate);
            }
        }
    }
}
