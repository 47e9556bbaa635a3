using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Engine;

/// <summary>The worker's side of <see cref="AsyncDispatcher{T}"/>: the loop, batches, flushes and the final drain.</summary>
internal sealed partial class AsyncDispatcher<T>
{
    /// <summary>After this many faults in a row the worker pauses between attempts instead of spinning on the failure.</summary>
    private const int FaultsBeforeBackOff = 3;

    private static readonly bool PauseAfterSmallBatches = Environment.ProcessorCount > 1;

    private void Run()
    {
        var items = ItemCopy.Prepare(new T[_maxBatchSize]);
        var unpublished = new SpinWait();
        var pause = new BatchPause(_queue.Capacity);
        try
        {
            bool running = true;
            while (running)
            {
                try
                {
                    running = RunOnce(items, ref unpublished, ref pause);
                    _state.ConsecutiveFaults = 0;
                }
                catch (Exception e)
                {
                    // Whatever escapes (an interrupt, a failed wait or lock, out of memory) is reported; the worker
                    // goes on, because producers depend on it to make room and Close depends on it to drain.
                    OnWorkerFault(e);
                }
            }

            FinishSafely(items);
        }
        finally
        {
            _stopped.Set(); // also if the thread is torn down (a .NET Framework abort), so Close never waits in vain
        }
    }

    /// <summary>One step of the loop.</summary>
    /// <returns>False when the worker is done: the queue is closed and drained, or a timed-out close abandoned it.</returns>
    [MethodImpl(Jit.Optimized)]
    private bool RunOnce(T[] items, ref SpinWait unpublished, ref BatchPause pause)
    {
        int count = _queue.Drain(items);
        bool small = pause.AfterDrain(count);
        if (_queue.LastDrainFreedRoom)
        {
            // Also when nothing was taken (a hot swap whose first slot is not written yet): the next drain clears it.
            ReleaseBlockedProducers();
        }

        if (count > 0)
        {
            unpublished.Reset();

            Deliver(items, count);
            if (_flushes.Pending)
            {
                ServeFlushRequests();
            }

            if (small && PauseAfterSmallBatches && !_queue.IsClosed)
            {
                // One hand-over per batch instead of one per event (BatchPause).
                pause.Pause();
            }

            return !Abandoned;
        }

        if (_queue.IsCompleted)
        {
            return false;
        }

        if (_queue.HasPending)
        {
            // A producer is between claiming and publishing. With more producers than cores it may have been
            // preempted there, so back off to yielding and let it run instead of holding the core.
            unpublished.SpinOnce();
            return true;
        }

        CaughtUp();
        _wait.WaitForWork(this);
        return true;
    }

    [MethodImpl(Jit.Optimized)]
    private void Deliver(T[] items, int drained)
    {
        // A slot whose store threw was published as a mark: it counts as drained (flushes wait for it), not as accepted.
        int count = ItemCopy.RemoveSkipped(items, drained);
        if (count != drained)
        {
            Interlocked.Add(ref _state.Skipped, drained - count);
        }

        if (Abandoned)
        {
            // Close gave up waiting: what is still here is counted, not delivered.
            Interlocked.Add(ref _undelivered, count);
        }
        else if (count > 0)
        {
            Volatile.Write(ref _state.InFlight, count);
            try
            {
                _sink.Deliver(items, count);
            }
            catch (Exception e)
            {
                SafeReportError("A child appender failed on a batch; delivery goes on.", e);
            }

            Interlocked.Add(ref _state.Delivered, count);
            Volatile.Write(ref _state.InFlight, 0);
            _state.DeliveredSinceFlush = true;
        }

        ItemCopy.ClearDelivered(items, drained); // keep no references to delivered events
        Interlocked.Add(ref _state.Drained, drained);
    }

    /// <summary>The queue ran empty: report discards, serve flush requests, and end the batch with a flush.</summary>
    private void CaughtUp()
    {
        ReportDiscards();
        if (_flushes.Pending)
        {
            ServeFlushRequests();
        }

        if (_state.DeliveredSinceFlush)
        {
            FlushSink(Timeout.Infinite);
        }
    }

    private void ReportDiscards()
    {
        long discarded = Interlocked.Read(ref _discarded.Value);
        if (discarded == _state.DiscardReported || Abandoned)
        {
            return;
        }

        long newly = discarded - _state.DiscardReported;
        _state.DiscardReported = discarded;
        try
        {
            _sink.ReportDiscarded(newly, discarded);
            _state.DeliveredSinceFlush = true;
        }
        catch (Exception e)
        {
            SafeReportError("Reporting discarded events failed.", e);
        }
    }

    /// <summary>Completes the requests whose items have all been delivered, after one flush that reaches the sink.</summary>
    private void ServeFlushRequests()
    {
        List<FlushRequest>? reached = _flushes.TakeReached(Interlocked.Read(ref _state.Drained));
        if (reached == null)
        {
            return;
        }

        ReportDiscards();

        // An explicit flush always reaches the sink, even with nothing new delivered: a child may be shared with
        // other parents, or its last flush may have failed.
        bool flushed = !Abandoned && FlushSink(Timeout.Infinite);
        bool succeeded = flushed && UndeliveredCount == 0;
        foreach (FlushRequest request in reached)
        {
            request.Complete(succeeded);
        }
    }

    /// <summary>Flushes the sink; after a failure the next end of batch tries again.</summary>
    private bool FlushSink(int timeoutMilliseconds)
    {
        _state.DeliveredSinceFlush = false;
        bool flushed = SafeFlush(timeoutMilliseconds);
        if (!flushed)
        {
            _state.DeliveredSinceFlush = true;
        }

        Volatile.Write(ref _state.LastFlushSucceeded, flushed);
        return flushed;
    }

    private bool SafeFlush(int timeoutMilliseconds)
    {
        try
        {
            return _sink.Flush(timeoutMilliseconds);
        }
        catch (Exception e)
        {
            SafeReportError("Flushing a child appender failed.", e);
            return false;
        }
    }

    private void FinishSafely(T[] items)
    {
        try
        {
            Finish(items);
        }
        catch (Exception e)
        {
            SafeReportError("The async appender's worker failed while finishing.", e);
        }

        foreach (FlushRequest request in _flushes.Finish())
        {
            request.Complete(Volatile.Read(ref _state.LastFlushSucceeded) && UndeliveredCount == 0 && !Abandoned);
        }

        try
        {
            _sink.Close();
        }
        catch (Exception e)
        {
            SafeReportError("Closing a child appender failed.", e);
        }
    }

    private void Finish(T[] items)
    {
        if (!Abandoned)
        {
            _state.DeliveredSinceFlush = true; // the last flush before the children close, whatever came before
            CaughtUp();
            return;
        }

        // Close gave up waiting: count what is left instead of delivering it.
        var unpublished = new SpinWait();
        while (!_queue.IsCompleted)
        {
            int count = _queue.Drain(items);
            if (count > 0)
            {
                Deliver(items, count);
            }
            else
            {
                unpublished.SpinOnce();
            }
        }
    }

    private void OnWorkerFault(Exception e)
    {
        long faults = ++_state.Faults;
        if (faults <= 10 || faults % 1000 == 0)
        {
            SafeReportError($"The async appender's worker caught an unexpected error ({faults} so far); it goes on.", e);
        }

        if (++_state.ConsecutiveFaults >= FaultsBeforeBackOff)
        {
            try
            {
                Thread.Sleep(Math.Min(_state.ConsecutiveFaults, 100));
            }
            catch (Exception)
            {
                // Interrupted again: the loop simply tries once more.
            }
        }
    }
}
