using System;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Threading;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Engine;

/// <summary>
/// The mechanism the three async appenders share: producers put items in an <see cref="IEventQueue{T}"/>; one dedicated
/// worker thread drains it in batches into an <see cref="IBatchSink{T}"/>, flushes the sink whenever the queue runs
/// empty, accounts for discards, contains faults, and drains on <see cref="Close"/>. This file holds the producer side
/// and the lifecycle; <c>AsyncDispatcher.Worker.cs</c> holds the worker's loop.
/// </summary>
/// <remarks>
/// <para><b>Waking the worker</b> is the <see cref="WaitStrategy"/>'s job: after a successful enqueue the producer calls
/// <see cref="WaitStrategy.SignalWork"/>, and an idle worker waits in <see cref="WaitStrategy.WaitForWork"/> until
/// <see cref="HasWork"/> is true.</para>
/// <para><b>Waiting for room.</b> A producer that finds the queue full spins briefly, then registers in
/// <c>_blockedProducers</c> (interlocked, a full fence), retries, and waits on <c>_spaceGate</c>. After a drain that
/// freed room the worker issues a full fence and pulses the gate if anyone is registered, so a producer either sees the
/// freed slot or is pulsed. The wait also has a timeout, as a safety net.</para>
/// <para><b>Flush</b> costs producers nothing: <see cref="Flush"/> notes how many items the queue has accepted so far
/// and waits until the worker has delivered that many and flushed the sink.</para>
/// </remarks>
internal sealed partial class AsyncDispatcher<T> : IWorkSignal
{
    private const int BlockedWaitMilliseconds = 100; // a safety net only; the protocol above does the waking
    private const long MinimumStall = 1000; // shutdownTimeout=0 must not turn a child's short wait into discards

    // Read by producers on every enqueue; written once, here.
    private readonly IEventQueue<T> _queue;

    private readonly WaitStrategy _wait;

    private readonly OverflowAction _overflow;

    private readonly Thread _worker;

    // Read by the worker; written once.
    private readonly IBatchSink<T> _sink;

    private readonly int _maxBatchSize;

    /// <summary>
    /// How long producers wait for room while the worker delivers nothing and is blocked (not running) in a child, in
    /// milliseconds; then they stop waiting and their events are discarded (counted and reported) until it moves
    /// again. Infinite unless given to the constructor.
    /// </summary>
    /// <remarks>
    /// The case it exists for: a child logs back into log4net from the worker while <c>LogManager.Shutdown</c> waits
    /// for a logger's write lock. Producers waiting for room hold that logger's read lock, log4net makes the worker
    /// wait behind the shutdown, and without a limit nothing ever moves again (and <c>Close</c> is never called).
    /// </remarks>
    private readonly int _stallTimeout;

    private readonly FlushRequests _flushes = new FlushRequests();

    private readonly object _spaceGate = new object();

    private readonly ManualResetEventSlim _stopped = new ManualResetEventSlim(false);

    // Producer side, slow paths only, each on a line of its own: a discard burst or a blocked producer must not slow
    // the fields every enqueue reads, nor the worker's counters.
    private PaddedLong _discarded;

    private PaddedInt _blockedProducers;

    // Worker side: written on every batch.
    private DispatcherWorkerState _state;

    // Lifecycle (rare).
    private long _rejectedAfterClose;

    private long _stalledAt = -1; // the worker's progress count at which producers stopped waiting (rare: on a stall)
    private long _undelivered;

    private int _started;

    private int _abandoned;

    public AsyncDispatcher(
        string name,
        IQueueFactory queueFactory,
        int capacity,
        IBatchSink<T> sink,
        OverflowAction overflow,
        int maxBatchSize,
        WaitStrategyKind waitStrategy,
        int stallTimeout = Timeout.Infinite)
    {
        if (capacity <= 0)
        {
            throw new ArgumentOutOfRangeException(nameof(capacity), capacity, "The capacity must be positive.");
        }

        if (queueFactory.RequiresPowerOfTwo && (capacity & (capacity - 1)) != 0)
        {
            throw new ArgumentOutOfRangeException(nameof(capacity), capacity, "This queue needs a power of two.");
        }

        if (overflow == OverflowAction.Grow && !queueFactory.SupportsGrow)
        {
            throw new ArgumentException("This queue cannot grow.", nameof(overflow));
        }

        // The item's storage rules are known before any queue method is compiled, so the JIT reads them as a constant.
        RuntimeHelpers.RunClassConstructor(typeof(SlotStorage<T>).TypeHandle);
        _queue = queueFactory.Create<T>(capacity, overflow == OverflowAction.Grow);
        if (_queue is IReportingQueue reporting)
        {
            reporting.ReportError += message => SafeReportError(message, null); // a misused producerType=Single
        }

        _wait = WaitStrategy.Create(waitStrategy, _queue.ClaimIsFullFence);
        _sink = sink;
        _overflow = overflow;
        _maxBatchSize = Math.Max(1, Math.Min(maxBatchSize, _queue.Capacity));
        _stallTimeout = stallTimeout;
        _worker = new Thread(Run) { IsBackground = true, Name = name };
    }

    /// <summary>Events producers dropped under <see cref="OverflowAction.Discard"/>.</summary>
    public long DiscardedCount => Interlocked.Read(ref _discarded.Value);

    /// <summary>Events handed to the sink.</summary>
    public long DeliveredCount => Interlocked.Read(ref _state.Delivered);

    /// <summary>Events accepted but never delivered because <see cref="Close"/> timed out.</summary>
    public long UndeliveredCount => Interlocked.Read(ref _undelivered);

    /// <summary>Events refused because the dispatcher was closed.</summary>
    public long RejectedAfterCloseCount => Interlocked.Read(ref _rejectedAfterClose);

    /// <summary>Items waiting in the queue (approximate).</summary>
    public long QueueDepth => _queue.Count;

    /// <summary>Events accepted by the queue so far: claims, less the skipped slots the worker has reached (a store that
    /// threw accepted nothing: its <see cref="Enqueue"/> threw, and the caller counts it). At rest, accepted = delivered
    /// + undelivered.</summary>
    public long AcceptedCount => _queue.EnqueuedCount - Interlocked.Read(ref _state.Skipped);

    public bool IsClosed => _queue.IsClosed;

    internal Thread WorkerThread => _worker;

    /// <summary>How the worker waits (the <c>waitStrategy</c> setting); a parking strategy's handshake is its state.</summary>
    internal WaitStrategy Wait => _wait;

    private bool Abandoned => Volatile.Read(ref _abandoned) != 0;

    /// <summary>Worker side: events claimed, a close, or a flush request waiting.</summary>
    public bool HasWork => _queue.HasPending || _queue.IsClosed || _flushes.Pending;

    /// <summary>
    /// A queue bound to its producer thread (producerType=Single) forgets the calling thread; see
    /// <see cref="IProducerBoundQueue.ReleaseProducer"/> for when that is safe.
    /// </summary>
    public void ReleaseProducerThread() => (_queue as IProducerBoundQueue)?.ReleaseProducer();

    /// <summary>Starts the worker without flowing the caller's execution context (no AsyncLocal leaks into it).</summary>
    public void Start()
    {
        if (Interlocked.Exchange(ref _started, 1) != 0)
        {
            return;
        }

        WithoutFlow.Run(_worker.Start);
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
        if (_queue.TryEnqueue(item) == EnqueueResult.Enqueued)
        {
            _wait.SignalWork();
            return true;
        }

        return EnqueueSlow(item, discardable);
    }

    /// <summary>Enqueues only if there is room right now: never waits, and a refusal is not counted anywhere.</summary>
    public bool TryEnqueueNow(in T item)
    {
        if (_queue.TryEnqueue(item) != EnqueueResult.Enqueued)
        {
            return false;
        }

        _wait.SignalWork();
        return true;
    }

    /// <summary>A blocked producer's view of the worker's progress.</summary>
    private struct StallWatch
    {
        private readonly AsyncDispatcher<T> _owner;
        private long _progress;
        private long _since;
        private bool _seenRunning;

        public StallWatch(AsyncDispatcher<T> owner, long progress)
        {
            _owner = owner;
            _progress = progress;
            _since = Stopwatch.GetTimestamp();
        }

        /// <summary>
        /// True once the worker has delivered nothing for the limit while it was seen waiting at every look, or for
        /// twice the limit whatever its state: a thread blocked in a native write (a pipe nobody reads, a hung network
        /// share) looks as running as one at work, so only progress tells them apart.
        /// </summary>
        public bool HasStalled()
        {
            int limit = _owner._stallTimeout;
            if (limit < 0)
            {
                return false;
            }

            long now = Interlocked.Read(ref _owner._state.Drained);
            if (now != _progress)
            {
                // Moving: start over.
                _progress = now;
                _since = Stopwatch.GetTimestamp();
                _seenRunning = false;
                return false;
            }

            _seenRunning |= (_owner._worker.ThreadState & System.Threading.ThreadState.WaitSleepJoin) == 0;
            long waited = (Stopwatch.GetTimestamp() - _since) * 1000;
            long allowed = (long)Math.Max(limit, MinimumStall) * (_seenRunning ? 2 : 1);
            if (waited < allowed * Stopwatch.Frequency)
            {
                return false;
            }

            _owner.MarkStalled(now);
            return true;
        }
    }

    /// <summary>
    /// Waits until every item accepted before the call has been delivered and the sink flushed successfully.
    /// </summary>
    /// <returns>False if the timeout passed first, a flush failed, or events were lost to a timed-out close.</returns>
    public bool Flush(int timeoutMilliseconds)
    {
        if (Thread.CurrentThread == _worker)
        {
            // A child flushing through us from the worker: the sink is flushed, but items queued behind the batch
            // being delivered cannot be waited for here, so success cannot be promised.
            SafeFlush(Timeout.Infinite);
            return false;
        }

        var request = new FlushRequest(_queue.EnqueuedCount);
        if (!_flushes.Add(request))
        {
            // The worker has finished: nothing is left to deliver, and the final flush has run.
            return Volatile.Read(ref _state.LastFlushSucceeded) && UndeliveredCount == 0;
        }

        _wait.Wake();
        return request.Wait(timeoutMilliseconds < Timeout.Infinite ? 0 : timeoutMilliseconds);
    }

    /// <summary>
    /// Stops accepting, delivers what is queued, flushes and closes the sink. Idempotent.
    /// </summary>
    /// <returns>True if everything was delivered within the timeout; otherwise the leftover was reported.</returns>
    public bool Close(int timeoutMilliseconds)
    {
        _queue.Close();
        _wait.Wake();
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

        if (_stopped.Wait(timeoutMilliseconds < Timeout.Infinite ? 0 : timeoutMilliseconds))
        {
            return UndeliveredCount == 0;
        }

        if (Interlocked.Exchange(ref _abandoned, 1) == 0)
        {
            if (_stopped.IsSet)
            {
                return UndeliveredCount == 0; // the worker finished just after the wait timed out
            }

            int inFlight = Volatile.Read(ref _state.InFlight);
            long queued = Math.Max(0, _queue.EnqueuedCount - Interlocked.Read(ref _state.Drained) - inFlight);
            SafeReportError(
                $"Close timed out after {timeoutMilliseconds} ms: {queued} queued event(s) will not be delivered" +
                (inFlight > 0 ? $"; a child appender has not returned from a batch of {inFlight} event(s)." : "."),
                null);
        }

        return false;
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
}

/// <summary>What the worker writes on every batch, on lines of its own, away from what producers read.</summary>
[StructLayout(LayoutKind.Explicit, Size = 2 * CacheLine.Size + 56)]
internal struct DispatcherWorkerState
{
    /// <summary>Items taken from the queue (delivered, or counted as undelivered after an abandoned close).</summary>
    [FieldOffset(CacheLine.Size)]
    public long Drained;

    [FieldOffset(CacheLine.Size + 8)]
    public long Delivered;

    [FieldOffset(CacheLine.Size + 16)]
    public long DiscardReported;

    /// <summary>Size of the batch a child is working on; read by a timed-out <c>Close</c>.</summary>
    [FieldOffset(CacheLine.Size + 24)]
    public int InFlight;

    [FieldOffset(CacheLine.Size + 28)]
    public bool DeliveredSinceFlush;

    [FieldOffset(CacheLine.Size + 29)]
    public bool LastFlushSucceeded;

    [FieldOffset(CacheLine.Size + 32)]
    public long Faults;

    /// <summary>Skipped slots (a store that threw) drained so far: not accepted.</summary>
    [FieldOffset(CacheLine.Size + 40)]
    public long Skipped;

    [FieldOffset(CacheLine.Size + 48)]
    public int ConsecutiveFaults;
}
