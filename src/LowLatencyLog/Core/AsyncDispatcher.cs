using System;
using System.Runtime.CompilerServices;
using System.Threading;

namespace LowLatencyLog.Core;

/// <summary>
/// The mechanism the three async appenders share: producers put items in an <see cref="IEventQueue{T}"/>; one dedicated
/// worker thread drains it in batches into an <see cref="IBatchSink{T}"/>, flushes the sink whenever the queue runs
/// empty, accounts for discards, contains faults, and drains on <see cref="Close"/>.
/// </summary>
/// <remarks>
/// <para><b>Waking the worker.</b> When it finds nothing to do the worker spins briefly, then sets
/// <c>_workerWaiting</c> with an interlocked exchange (a full fence), checks the queue's claimed positions once more and
/// only then sleeps. A producer claims its slot with an interlocked operation (a full fence) and afterwards reads
/// <c>_workerWaiting</c>. Of the two fenced operations one comes first: either the worker's re-check sees the claim, or
/// the producer sees the flag and releases the worker. The producer's hot path therefore costs one plain read here.</para>
/// <para><b>Waiting for room.</b> A producer that finds the queue full spins briefly, then registers in
/// <c>_blockedProducers</c> (interlocked), retries, and waits on <c>_spaceGate</c>. After freeing slots the worker issues a
/// full fence and pulses the gate if anyone is registered, so a producer either sees the freed slot or is pulsed.</para>
/// <para><b>Flush.</b> <see cref="Flush"/> enqueues a marker behind every item accepted before the call; the worker
/// completes it after delivering what precedes it and flushing the sink, so flushing costs the hot path nothing.</para>
/// </remarks>
internal sealed class AsyncDispatcher<T>
{
    private const int SpinsBeforeBlocking = 64;
    private const int SpinsBeforeParking = 256;
    private const int BlockedWaitMilliseconds = 100; // a safety net only; the protocol above does the waking

    private readonly IEventQueue<Envelope<T>> _queue;
    private readonly IBatchSink<T> _sink;
    private readonly OverflowAction _overflow;
    private readonly int _maxBatchSize;
    private readonly Thread _worker;

    // Producer side, slow paths only.
    private readonly object _spaceGate = new object();
    private int _blockedProducers;
    private long _discarded;
    private long _rejectedAfterClose;

    // Handshake between producers and the worker.
    private readonly SemaphoreSlim _wake = new SemaphoreSlim(0);
    private int _workerWaiting;

    // Worker side.
    private long _delivered;
    private long _discardReported;
    private bool _deliveredSinceFlush;
    private int _inFlight;

    // Lifecycle.
    private readonly ManualResetEventSlim _stopped = new ManualResetEventSlim(false);
    private int _started;
    private volatile bool _abandoned;
    private long _undelivered;

    public AsyncDispatcher(
        string name, IQueueFactory queueFactory, int capacity, IBatchSink<T> sink, OverflowAction overflow, int maxBatchSize)
    {
        if (capacity <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(capacity), capacity, "The capacity must be positive.");
        }

        if (overflow == OverflowAction.Grow && !queueFactory.SupportsGrow)
        {
            throw new ArgumentException("This queue cannot grow.", nameof(overflow));
        }

        IEventQueue<Envelope<T>> queue = queueFactory.Create<Envelope<T>>(capacity, overflow == OverflowAction.Grow);
        _queue = queue;
        _sink = sink;
        _overflow = overflow;
        _maxBatchSize = Math.Max(1, Math.Min(maxBatchSize, queue.Capacity));
        _worker = new Thread(Run) { IsBackground = true, Name = name };
    }

    /// <summary>Events producers dropped under <see cref="OverflowAction.Discard"/>.</summary>
    public long DiscardedCount => Interlocked.Read(ref _discarded);

    /// <summary>Events handed to the sink.</summary>
    public long DeliveredCount => Interlocked.Read(ref _delivered);

    /// <summary>Events accepted but never delivered because <see cref="Close"/> timed out.</summary>
    public long UndeliveredCount => Interlocked.Read(ref _undelivered);

    /// <summary>Events refused because the dispatcher was closed.</summary>
    public long RejectedAfterCloseCount => Interlocked.Read(ref _rejectedAfterClose);

    /// <summary>Items waiting in the queue (approximate).</summary>
    public long QueueDepth => _queue.Count;

    public bool IsClosed => _queue.IsClosed;

    internal Thread WorkerThread => _worker;

    internal bool IsWorkerWaiting => Volatile.Read(ref _workerWaiting) != 0;

    /// <summary>Starts the worker without flowing the caller's execution context (no AsyncLocal leaks into it).</summary>
    public void Start()
    {
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            return;
        }

        using (ExecutionContext.SuppressFlow())
        {
            _worker.Start();
        }
    }

    /// <summary>Producer side. Returns false when the item was discarded or the dispatcher is closed.</summary>
    /// <remarks>
    /// The only exception it lets through is <see cref="ThreadInterruptedException"/>, when the caller's thread is
    /// interrupted while it waits for room; an interrupt is the caller's to handle (the appender catches everything).
    /// </remarks>
    /// <param name="item">The item to deliver.</param>
    /// <param name="discardable">With <see cref="OverflowAction.Discard"/>, whether the item may be dropped when full.</param>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Enqueue(in T item, bool discardable)
    {
        if (_queue.TryEnqueue(new Envelope<T>(item)) == EnqueueResult.Enqueued)
        {
            WakeWorkerIfWaiting();

            return true;
        }

        return EnqueueSlow(item, discardable);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private bool EnqueueSlow(in T item, bool discardable)
    {
        var envelope = new Envelope<T>(item);

        // Only the worker makes room, so the worker itself (a child logging back into this appender) must never wait.
        if ((_overflow == OverflowAction.Discard && discardable) || Thread.CurrentThread == _worker)
        {
            EnqueueResult result = _queue.TryEnqueue(envelope);
            if (result == EnqueueResult.Full)
            {
                Interlocked.Increment(ref _discarded);
                return false;
            }

            return Accepted(result);
        }

        return Accepted(EnqueueWaiting(envelope, Timeout.Infinite));
    }

    private bool Accepted(EnqueueResult result)
    {
        if (result == EnqueueResult.Enqueued)
        {
            WakeWorkerIfWaiting();

            return true;
        }

        if (Interlocked.Increment(ref _rejectedAfterClose) == 1)
        {
            SafeReportError("Events were logged after the appender was closed; they are not delivered.", null);
        }

        return false;
    }

    /// <summary>Enqueues, waiting for room; returns <see cref="EnqueueResult.Full"/> only if the timeout passed.</summary>
    private EnqueueResult EnqueueWaiting(in Envelope<T> item, int timeoutMilliseconds)
    {
        for (int spin = 0; spin < SpinsBeforeBlocking; spin++)
        {
            EnqueueResult result = _queue.TryEnqueue(item);
            if (result != EnqueueResult.Full)
            {
                return result;
            }

            Thread.SpinWait(20);
        }

        int start = Environment.TickCount;
        Interlocked.Increment(ref _blockedProducers); // full fence before the retry below
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

                    int wait = BlockedWaitMilliseconds;
                    if (timeoutMilliseconds != Timeout.Infinite)
                    {
                        int left = timeoutMilliseconds - unchecked(Environment.TickCount - start);
                        if (left <= 0)
                        {
                            return EnqueueResult.Full;
                        }

                        wait = Math.Min(wait, left);
                    }

                    Monitor.Wait(_spaceGate, wait);
                }
            }
        }
        finally
        {
            Interlocked.Decrement(ref _blockedProducers);
        }
    }

    /// <summary>The producer's half of the wake protocol: one plain read, after the queue's fenced claim.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void WakeWorkerIfWaiting()
    {
        if (Volatile.Read(ref _workerWaiting) != 0)
        {
            WakeWorker();
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WakeWorker()
    {
        if (Interlocked.Exchange(ref _workerWaiting, 0) != 0)
        {
            _wake.Release();
        }
    }

    private void ReleaseBlockedProducers()
    {
        Thread.MemoryBarrier(); // the freed slots are visible before we read the count (pairs with the producer's increment)
        if (Volatile.Read(ref _blockedProducers) != 0)
        {
            lock (_spaceGate)
            {
                Monitor.PulseAll(_spaceGate);
            }
        }
    }

    /// <summary>
    /// Waits until every item accepted before the call has been delivered and the sink flushed.
    /// </summary>
    /// <returns>False if the timeout passed first.</returns>
    public bool Flush(int timeoutMilliseconds)
    {
        if (Thread.CurrentThread == _worker)
        {
            // A child flushing through us from the worker: the sink is flushed, but items queued behind the batch
            // being delivered cannot be waited for here, so success cannot be promised.
            SafeFlush();
            return false;
        }

        int start = Environment.TickCount;
        var request = new FlushRequest();
        EnqueueResult result = EnqueueWaiting(new Envelope<T>(request), timeoutMilliseconds);
        if (result == EnqueueResult.Full)
        {
            return false;
        }

        WakeWorkerIfWaiting();

        int left = timeoutMilliseconds == Timeout.Infinite
            ? Timeout.Infinite
            : Math.Max(0, timeoutMilliseconds - unchecked(Environment.TickCount - start));
        return result == EnqueueResult.Closed
            ? _stopped.Wait(left) && _undelivered == 0
            : request.Wait(left);
    }

    /// <summary>
    /// Stops accepting, delivers what is queued, flushes and closes the sink. Idempotent.
    /// </summary>
    /// <returns>True if everything was delivered within the timeout; otherwise the leftover was reported.</returns>
    public bool Close(int timeoutMilliseconds)
    {
        _queue.Close();
        WakeWorker();
        lock (_spaceGate)
        {
            Monitor.PulseAll(_spaceGate); // blocked producers now see Closed
        }

        if (Volatile.Read(ref _started) == 0)
        {
            Start(); // never activated but closed: the worker still closes the sink
        }

        if (Thread.CurrentThread == _worker)
        {
            return false; // closed from inside a child: the worker finishes once it returns there
        }

        if (_stopped.Wait(timeoutMilliseconds))
        {
            return Interlocked.Read(ref _undelivered) == 0;
        }

        if (!_abandoned)
        {
            _abandoned = true;
            if (_stopped.IsSet)
            {
                return Interlocked.Read(ref _undelivered) == 0; // the worker finished just after the wait timed out
            }

            int inFlight = Volatile.Read(ref _inFlight);
            SafeReportError(
                $"Close timed out after {timeoutMilliseconds} ms: {_queue.Count} queued event(s) will not be delivered" +
                (inFlight > 0 ? $"; a child appender has not returned from a batch of {inFlight} event(s)." : "."),
                null);
        }

        return false;
    }

    private void Run()
    {
        var buffer = new Envelope<T>[_maxBatchSize];
        var items = new T[_maxBatchSize];
        var unpublished = new SpinWait();
        while (true)
        {
            int count;
            try
            {
                count = _queue.Drain(buffer);
            }
            catch (Exception e)
            {
                SafeReportError("The async appender's queue failed; the worker goes on.", e);
                continue;
            }

            if (count > 0)
            {
                unpublished.Reset();
                ReleaseBlockedProducers();
                Process(buffer, count, items);
                if (_abandoned)
                {
                    break;
                }

                continue;
            }

            if (_queue.IsCompleted)
            {
                break;
            }

            if (_queue.HasPending)
            {
                // A producer is between claiming and publishing. With more producers than cores it may have been
                // preempted there, so back off to yielding and let it run instead of holding the core.
                unpublished.SpinOnce();
                continue;
            }

            CaughtUp();
            Park();
        }

        Finish(buffer);
    }

    private void Process(Envelope<T>[] buffer, int count, T[] items)
    {
        int pending = 0;
        for (int i = 0; i < count; i++)
        {
            FlushRequest? request = buffer[i].Flush;
            if (request == null)
            {
                items[pending++] = buffer[i].Item;
                continue;
            }

            Deliver(items, pending);
            pending = 0;
            if (!_abandoned)
            {
                CaughtUp();
            }

            request.Complete(delivered: !_abandoned);
        }

        Deliver(items, pending);
        Array.Clear(buffer, 0, count); // keep no references to delivered events
    }

    private void Deliver(T[] items, int count)
    {
        if (count == 0)
        {
            return;
        }

        if (_abandoned)
        {
            // Close gave up waiting: what is still here is counted, not delivered.
            Interlocked.Add(ref _undelivered, count);
            Array.Clear(items, 0, count);
            return;
        }

        Volatile.Write(ref _inFlight, count);
        try
        {
            _sink.Deliver(items, count);
        }
        catch (Exception e)
        {
            SafeReportError("A child appender failed on a batch; delivery goes on.", e);
        }

        Array.Clear(items, 0, count);
        Interlocked.Add(ref _delivered, count);
        Volatile.Write(ref _inFlight, 0);
        _deliveredSinceFlush = true;
    }

    /// <summary>The queue ran empty (or a flush marker arrived): report discards, then end the batch with a flush.</summary>
    private void CaughtUp()
    {
        long discarded = Interlocked.Read(ref _discarded);
        if (discarded != _discardReported)
        {
            long newly = discarded - _discardReported;
            _discardReported = discarded;
            try
            {
                _sink.ReportDiscarded(newly, discarded);
                _deliveredSinceFlush = true;
            }
            catch (Exception e)
            {
                SafeReportError("Reporting discarded events failed.", e);
            }
        }

        if (_deliveredSinceFlush)
        {
            _deliveredSinceFlush = false;
            SafeFlush();
        }
    }

    private void Park()
    {
        for (int spin = 0; spin < SpinsBeforeParking; spin++)
        {
            if (_queue.HasPending || _queue.IsClosed)
            {
                return;
            }

            Thread.SpinWait(20);
        }

        Interlocked.Exchange(ref _workerWaiting, 1);
        if (_queue.HasPending || _queue.IsClosed)
        {
            Interlocked.Exchange(ref _workerWaiting, 0);
            return;
        }

        _wake.Wait();
    }

    private void Finish(Envelope<T>[] buffer)
    {
        if (_abandoned)
        {
            // Close gave up waiting: count what is left instead of delivering it.
            int count;
            while ((count = _queue.Drain(buffer)) > 0 || !_queue.IsCompleted)
            {
                for (int i = 0; i < count; i++)
                {
                    if (buffer[i].Flush is FlushRequest request)
                    {
                        request.Complete(delivered: false);
                    }
                    else
                    {
                        Interlocked.Increment(ref _undelivered);
                    }
                }

                Array.Clear(buffer, 0, count);
            }
        }
        else
        {
            CaughtUp();
        }

        try
        {
            _sink.Close();
        }
        catch (Exception e)
        {
            SafeReportError("Closing a child appender failed.", e);
        }

        _stopped.Set();
    }

    private void SafeFlush()
    {
        try
        {
            _sink.Flush(Timeout.Infinite);
        }
        catch (Exception e)
        {
            SafeReportError("Flushing a child appender failed.", e);
        }
    }

    private void SafeReportError(string message, Exception? exception)
    {
        try
        {
            _sink.ReportError(message, exception);
        }
        catch
        {
            // The error channel itself failed; there is nowhere left to report to, and the worker must not die.
        }
    }

    internal sealed class FlushRequest
    {
        private readonly ManualResetEventSlim _done = new ManualResetEventSlim(false);
        private volatile bool _delivered;

        public void Complete(bool delivered)
        {
            _delivered = delivered;
            _done.Set();
        }

        public bool Wait(int timeoutMilliseconds) => _done.Wait(timeoutMilliseconds) && _delivered;
    }
}

/// <summary>What a queue slot holds for the dispatcher: an item, or a flush marker.</summary>
internal readonly struct Envelope<T>
{
    public readonly T Item;
    public readonly AsyncDispatcher<T>.FlushRequest? Flush;

    public Envelope(in T item)
    {
        Item = item;
        Flush = null;
    }

    public Envelope(AsyncDispatcher<T>.FlushRequest flush)
    {
        Item = default!;
        Flush = flush;
    }
}
