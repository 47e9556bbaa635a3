using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using log4net.Appender;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine;

namespace LowLatencyLog.Forwarding;

/// <summary>What an async appender gives its <see cref="AppenderLifecycle"/>: who it is, its children, and the steps
/// that differ between appenders.</summary>
internal sealed class LifecycleHooks
{
    public LifecycleHooks(Type owner, Func<string> name, ChildAppenders children, Action<string, Exception?> reportError, CreateDispatcher create)
    {
        Owner = owner;
        Name = name;
        Children = children;
        ReportError = reportError;
        Create = create;
    }

    /// <summary>Creates the dispatcher, not started, under the lifecycle lock: called once, at the first activation
    /// (the settings are read then); gives the shutdown timeout they set.</summary>
    public delegate AsyncDispatcher<CapturedEvent> CreateDispatcher(out int shutdownTimeout);

    public Type Owner { get; }

    public Func<string> Name { get; }

    public ChildAppenders Children { get; }

    /// <summary>Reports through the appender's error handler.</summary>
    public Action<string, Exception?> ReportError { get; }

    public CreateDispatcher Create { get; }

    /// <summary>Activated again (under the lifecycle lock): only the children may have changed.</summary>
    public Action Reactivate { get; set; } = () => { };

    /// <summary>Under the lifecycle lock, once the early events are queued: producers enqueue into the dispatcher
    /// directly from now on.</summary>
    public Action<AsyncDispatcher<CapturedEvent>> Publish { get; set; } = _ => { };

    public Func<AsyncDispatcher<CapturedEvent>, IDisposable?> RegisterMetrics { get; set; } = _ => null;
}

/// <summary>
/// An async appender's life: the events taken before activation (<see cref="EarlyEvents"/>), the activation that
/// starts the worker and moves them into its buffer, the synchronous fallback when the worker cannot start, and the
/// close that drains within the shutdown timeout. Activated twice, it only re-examines the children; closed, it stays
/// closed.
/// </summary>
/// <remarks>Every state change is under one lock (<c>_gate</c>), never held while waiting for room in the buffer.
/// The calling threads do not come here once the dispatcher is published: the appender keeps its own copy.</remarks>
internal sealed class AppenderLifecycle : IFlushable
{
    private readonly LifecycleHooks _hooks;
    private readonly object _gate = new object();
    private readonly EarlyEvents _early;
    private readonly int _defaultShutdownTimeout;
    private volatile AsyncDispatcher<CapturedEvent>? _dispatcher; // published: the early events are queued
    private AsyncDispatcher<CapturedEvent>? _activating; // started, still taking the early events
    private volatile bool _synchronous; // the worker could not start: children are called on the logging threads
    private bool _activated;
    private bool _closed;
    private int _shutdownTimeout;
    private IDisposable? _metrics;

    public AppenderLifecycle(LifecycleHooks hooks, int defaultShutdownTimeout)
    {
        _hooks = hooks;
        _early = new EarlyEvents(_gate);
        _defaultShutdownTimeout = _shutdownTimeout = defaultShutdownTimeout;
    }

    /// <summary>The worker could not start: the children are called on the logging threads.</summary>
    public bool Synchronous => _synchronous;

    /// <summary>The dispatcher, also while activation is still moving the early events into it.</summary>
    public AsyncDispatcher<CapturedEvent>? Running => _dispatcher ?? Volatile.Read(ref _activating);

    /// <summary>The shutdown timeout read at activation, or the default before it.</summary>
    public int ShutdownTimeout => Volatile.Read(ref _shutdownTimeout);

    /// <summary>Events dropped before activation and not yet handed to the dispatcher's count.</summary>
    public long DroppedBeforeActivation
    {
        get
        {
            lock (_gate)
            {
                return _early.Dropped;
            }
        }
    }

    /// <summary>Events held before activation, then left behind by a close.</summary>
    public long UndeliveredBeforeActivation => _early.Undelivered;

    private Type Owner => _hooks.Owner;

    private string Name => _hooks.Name();

    /// <summary>Creates and starts the worker, then moves the early events into its buffer; activated again, only
    /// re-examines the children; after close, stays closed.</summary>
    public void Activate()
    {
        AsyncDispatcher<CapturedEvent> dispatcher;
        int timeout;
        lock (_gate)
        {
            if (_closed)
            {
                LogLog.Warn(Owner, $"Appender [{Name}] was activated after it was closed; it stays closed.");
                return;
            }

            if (_activated)
            {
                _hooks.Reactivate();
                return;
            }

            dispatcher = _hooks.Create(out timeout);
            _activated = true;
            Volatile.Write(ref _shutdownTimeout, timeout);
            try
            {
                dispatcher.Start();
            }
            catch (Exception e)
            {
                // No worker (threads refused, out of memory): the children are called on the logging threads, so the
                // application keeps logging, and nothing waits for a worker that will never run.
                LogLog.Error(Owner, $"Appender [{Name}] could not start its worker thread; it forwards events to its appenders on the logging threads instead.", e);
                _synchronous = true;
                ForwardEarlyEventsSynchronously();
                return;
            }

            _activating = dispatcher;
            CrashFlush.Register(this, timeout, async: true);
            try
            {
                _metrics = _hooks.RegisterMetrics(dispatcher);
            }
            catch (Exception e)
            {
                LogLog.Warn(Owner, $"Appender [{Name}] could not register its metrics; it logs on without them.", e);
            }
        }

        MoveEarlyEvents(dispatcher, timeout);
    }

    /// <summary>
    /// An event logged before the dispatcher was published, already captured: held, counted as dropped, given to the
    /// children on this thread (no worker), or, when activation finished meanwhile, returned to be enqueued behind the
    /// early events (null otherwise).
    /// </summary>
    public AsyncDispatcher<CapturedEvent>? TakeBeforeActivation(in CapturedEvent captured, LoggingEvent loggingEvent)
    {
        AsyncDispatcher<CapturedEvent>? dispatcher;
        long waitUntil = 0;
        long movesSeen = -1;
        lock (_gate)
        {
            while ((dispatcher = _dispatcher) == null)
            {
                if (_synchronous)
                {
                    break;
                }

                if (!_early.IsOpen)
                {
                    return null; // closed before activation
                }

                // While activation moves the early events into the buffer, wait until it is done (under Block a
                // producer waits for room anyway), so the early queue only shrinks and activation finishes. The
                // worker itself never waits (only it makes room), and an appender that nobody activates does not
                // hold the application's threads: beyond the limit its events are counted as dropped.
                if (_activating == null || Thread.CurrentThread == _activating.WorkerThread)
                {
                    _early.Hold(captured); // beyond the limit, counted as dropped
                    return null;
                }

                // Bounded: a logging thread waits while activation makes progress, and at most the timeout without any
                // (activation gives up moving then too).
                long now = Stopwatch.GetTimestamp();
                if (_early.Moves != movesSeen)
                {
                    movesSeen = _early.Moves;
                    waitUntil = now + (long)_shutdownTimeout * Stopwatch.Frequency / 1000;
                }
                else if (now >= waitUntil)
                {
                    _early.CountDropped(); // counted with the discards once activation finishes
                    return null;
                }

                Monitor.Wait(_gate, 100);
            }
        }

        if (dispatcher == null)
        {
            ForwardSynchronously(loggingEvent); // the worker could not start meanwhile
        }

        return dispatcher;
    }

    /// <summary>Without a worker: the event to every child on the calling thread (each child takes its own lock).</summary>
    public void ForwardSynchronously(LoggingEvent loggingEvent)
    {
        foreach (IAppender child in _hooks.Children.Current)
        {
            try
            {
                child.DoAppend(loggingEvent);
            }
            catch (Exception e)
            {
                _hooks.ReportError($"Appender [{Name}]: appender [{child.Name}] failed.", e);
            }
        }
    }

    /// <summary>Waits until every event taken before the call has reached the children and they are flushed.</summary>
    public bool Flush(int millisecondsTimeout)
    {
        AsyncDispatcher<CapturedEvent>? dispatcher = _dispatcher;
        if (dispatcher != null)
        {
            return dispatcher.Flush(millisecondsTimeout);
        }

        if (_synchronous)
        {
            bool flushed = true;
            foreach (IAppender child in _hooks.Children.Current)
            {
                if (child is log4net.Appender.FileAppender { ImmediateFlush: false })
                {
                    // Never FileAppender.Flush(int) there: it fails and drops the writer's buffer (ChildrenSink's
                    // way round it needs the single worker). Its text reaches the file as it fills, or at close.
                    flushed = false;
                    continue;
                }

                flushed &= child is not IFlushable flushable || flushable.Flush(millisecondsTimeout);
            }

            return flushed;
        }

        lock (_gate)
        {
            return _early.AllDelivered;
        }
    }

    /// <summary>Stops taking events, delivers what is queued within the shutdown timeout, then flushes and closes the
    /// children (the worker does, or this thread when there is none). Idempotent.</summary>
    public void Close()
    {
        AsyncDispatcher<CapturedEvent>? dispatcher;
        Queue<CapturedEvent>? early;
        lock (_gate)
        {
            if (_closed)
            {
                return;
            }

            _closed = true;
            CrashFlush.Unregister(this);
            dispatcher = _dispatcher ?? _activating;
            early = _early.Detach();
            _metrics?.Dispose();
            _metrics = null;
            if (dispatcher != null && early != null)
            {
                // Activation is still moving the early events into the buffer: this thread finishes the move.
                TakeOverFromActivation(dispatcher);
            }

            Monitor.PulseAll(_gate); // producers waiting for activation see the close
        }

        try
        {
            if (dispatcher != null)
            {
                int timeout = _shutdownTimeout;
                long start = Stopwatch.GetTimestamp();
                int left = early == null ? 0 : EarlyEvents.MoveLeftover(dispatcher, early, timeout);
                if (left > 0)
                {
                    _hooks.ReportError($"Appender [{Name}] was closed while it was being activated; {left} event(s) appended before activation could not be queued within shutdownTimeout ({timeout} ms) and will not be delivered.", null);
                }

                long spent = (Stopwatch.GetTimestamp() - start) * 1000 / Stopwatch.Frequency;
                dispatcher.Close((int)Math.Max(0, timeout - spent));
                return;
            }

            if (early != null && early.Count > 0)
            {
                _early.CountUndelivered(early.Count);
                LogLog.Warn(Owner, $"Appender [{Name}] was closed before it was activated; {early.Count} event(s) appended before activation were not delivered.");
            }

            CloseChildren();
        }
        catch (Exception e)
        {
            LogLog.Error(Owner, $"Appender [{Name}] failed to close.", e);
        }
    }

    /// <summary>Under <c>_gate</c>, when the worker could not start: the events held so far go to the children
    /// now, in order, and the count of those dropped before is reported.</summary>
    private void ForwardEarlyEventsSynchronously()
    {
        Debug.Assert(Monitor.IsEntered(_gate));
        Queue<CapturedEvent>? early = _early.Detach();
        Monitor.PulseAll(_gate);
        if (_early.Dropped > 0)
        {
            LogLog.Warn(Owner, $"Appender [{Name}]: {_early.Dropped} event(s) logged before activation were dropped (more than {EarlyEvents.Limit} were waiting).");
        }

        while (early is { Count: > 0 })
        {
            ForwardSynchronously(early.Dequeue().Rebuild());
        }
    }

    /// <summary>
    /// Moves the events appended before activation into the started dispatcher, oldest first, then publishes the
    /// dispatcher to producers, so every thread's events stay in order. Producers that arrive meanwhile wait for it to
    /// finish. The lock is never held while waiting for room, so a child that logs back into this appender from the
    /// worker cannot deadlock it.
    /// </summary>
    private void MoveEarlyEvents(AsyncDispatcher<CapturedEvent> dispatcher, int timeout)
    {
        var room = new SpinWait();
        long patience = (long)Math.Max(timeout, 1) * Stopwatch.Frequency / 1000;
        long deadline = Stopwatch.GetTimestamp() + patience;
        while (true)
        {
            lock (_gate)
            {
                if (!_early.IsOpen)
                {
                    return; // closed meanwhile: Close moves or counts what was left
                }

                if (_early.MoveInto(dispatcher))
                {
                    Monitor.PulseAll(_gate); // producers waiting for room in the early queue
                    deadline = Stopwatch.GetTimestamp() + patience;
                }
                else if (Stopwatch.GetTimestamp() >= deadline)
                {
                    // The worker made no room for the whole timeout (a child that blocks): the rest is counted and
                    // reported as undelivered rather than holding activation, and the logging threads, for ever.
                    int count = _early.GiveUp(dispatcher);
                    LogLog.Error(Owner, $"Appender [{Name}]: {count} event(s) logged before activation could not be queued within {timeout} ms (the worker made no room); they are not delivered.");
                }

                if (_early.Count == 0)
                {
                    TakeOverFromActivation(dispatcher);
                    _early.Detach();
                    _activating = null;
                    _dispatcher = dispatcher;
                    _hooks.Publish(dispatcher); // from now on producers enqueue directly, behind the early events
                    Monitor.PulseAll(_gate);
                    return;
                }
            }

            room.SpinOnce(); // the worker is draining; a hot-swap queue takes only half its capacity before it swaps
        }
    }

    /// <summary>
    /// Under <c>_gate</c>, once the early events are moved or about to be moved by another thread: the activating
    /// thread is not the application's producer, so a producerType=Single ring must not stay bound to it; and the
    /// events dropped before activation join the dispatcher's discards, which the worker reports (a WARN event and an
    /// internal warning).
    /// </summary>
    private void TakeOverFromActivation(AsyncDispatcher<CapturedEvent> dispatcher)
    {
        Debug.Assert(Monitor.IsEntered(_gate));
        dispatcher.ReleaseProducerThread();
        _early.HandDroppedTo(dispatcher);
    }

    private void CloseChildren()
    {
        foreach (IAppender child in _hooks.Children.Current)
        {
            try
            {
                child.Close();
            }
            catch (Exception e)
            {
                _hooks.ReportError($"Appender [{Name}]: closing child appender [{child.Name}] failed.", e);
            }
        }
    }
}
