using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using log4net.Appender;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Capture;
using LowLatencyLog.Configuration;
using LowLatencyLog.Engine;
using LowLatencyLog.Forwarding;

namespace LowLatencyLog.Appender;

// AsyncForwardingAppender, continued: activation: the worker, the events logged before it, and the synchronous fallback.
public abstract partial class AsyncForwardingAppender
{
    private void Activate()
    {
        AsyncDispatcher<CapturedEvent> dispatcher;
        lock (_lifecycle)
        {
            if (_closed)
            {
                LogLog.Warn(GetType(), $"Appender [{Name}] was activated after it was closed; it stays closed.");
                return;
            }

            if (_settings != null)
            {
                ResolveCapture(_settings, _children.Current); // activated again: only the children may have changed
                return;
            }

            Action<string> reportError = message => LogLog.Error(GetType(), $"Appender [{Name}]: {message}");
            IQueueFactory queueFactory = CreateQueueFactory(reportError);
            AsyncAppenderSettings settings = AsyncAppenderSettings.Read(
                BufferSize, Overflow, DiscardThreshold, Fix, ShutdownTimeout, WaitStrategy, queueFactory.SupportsGrow, queueFactory.RequiresPowerOfTwo, reportError);
            if (_children.Current.Length == 0)
            {
                LogLog.Error(GetType(), $"Appender [{Name}] has no appender to forward to: add at least one <appender-ref ref=\"...\"/>. Events it receives are dropped until one is attached.");
            }

            _discardThresholdValue = settings.DiscardThreshold.Value;
            _settings = settings;
            ResolveCapture(settings, _children.Current);

            dispatcher = CreateDispatcher(queueFactory, settings);
            try
            {
                StartWorker(dispatcher);
            }
            catch (Exception e)
            {
                // No worker (threads refused, out of memory): the children are called on the logging threads, so the
                // application keeps logging, and nothing waits for a worker that will never run.
                LogLog.Error(GetType(), $"Appender [{Name}] could not start its worker thread; it forwards events to its appenders on the logging threads instead.", e);
                _synchronous = true;
                ForwardEarlyEventsSynchronously();
                return;
            }

            _activating = dispatcher;
            CrashFlush.Register(this, settings.ShutdownTimeout, async: true);
            try
            {
                _metrics = RegisterMetrics(dispatcher);
            }
            catch (Exception e)
            {
                LogLog.Warn(GetType(), $"Appender [{Name}] could not register its metrics; it logs on without them.", e);
            }
        }

        MoveEarlyEvents(dispatcher, _settings!.ShutdownTimeout);
    }

    /// <summary>Starts the worker thread (a seam for tests that refuse it).</summary>
    private protected virtual void StartWorker(AsyncDispatcher<CapturedEvent> dispatcher) => dispatcher.Start();

    /// <summary>Registers the appender's metrics (a seam for tests that make it fail).</summary>
    private protected virtual IDisposable? RegisterMetrics(AsyncDispatcher<CapturedEvent> dispatcher) =>
        AppenderMetrics.Register(
            string.IsNullOrEmpty(Name) ? GetType().Name : Name,
            () => dispatcher.AcceptedCount,
            () => dispatcher.DeliveredCount,
            () => DiscardedCount,
            () => dispatcher.QueueDepth,
            () => ReentrantCount);

    /// <summary>Under <c>_lifecycle</c>, when the worker could not start: the events held so far go to the children
    /// now, in order, and the count of those dropped before is reported.</summary>
    private void ForwardEarlyEventsSynchronously()
    {
        Debug.Assert(Monitor.IsEntered(_lifecycle));
        Queue<CapturedEvent>? early = _early.Detach();
        Monitor.PulseAll(_lifecycle);
        if (_early.Dropped > 0)
        {
            LogLog.Warn(GetType(), $"Appender [{Name}]: {_early.Dropped} event(s) logged before activation were dropped (more than {EarlyEvents.Limit} were waiting).");
        }

        while (early is { Count: > 0 })
        {
            ForwardSynchronously(early.Dequeue().Rebuild());
        }
    }

    /// <summary>Without a worker: the event to every child on the calling thread (each child takes its own lock).</summary>
    private void ForwardSynchronously(LoggingEvent loggingEvent)
    {
        foreach (IAppender child in _children.Current)
        {
            try
            {
                child.DoAppend(loggingEvent);
            }
            catch (Exception e)
            {
                ReportError($"Appender [{Name}]: appender [{child.Name}] failed.", e);
            }
        }
    }

    /// <summary>The one place the dispatcher is created.</summary>
    private AsyncDispatcher<CapturedEvent> CreateDispatcher(IQueueFactory queueFactory, AsyncAppenderSettings settings) =>
        new AsyncDispatcher<CapturedEvent>(
            string.IsNullOrEmpty(Name) ? GetType().Name : Name,
            queueFactory,
            settings.BufferSize,
            new ChildrenSink(_children, GetType(), () => Name, ReportError),
            settings.Overflow,
            MaxBatchSize,
            settings.WaitStrategy,
            settings.ShutdownTimeout);

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
            lock (_lifecycle)
            {
                if (!_early.IsOpen)
                {
                    return; // closed meanwhile: Close moves or counts what was left
                }

                if (_early.MoveInto(dispatcher))
                {
                    Monitor.PulseAll(_lifecycle); // producers waiting for room in the early queue
                    deadline = Stopwatch.GetTimestamp() + patience;
                }
                else if (Stopwatch.GetTimestamp() >= deadline)
                {
                    // The worker made no room for the whole timeout (a child that blocks): the rest is counted and
                    // reported as undelivered rather than holding activation, and the logging threads, for ever.
                    int count = _early.GiveUp(dispatcher);
                    LogLog.Error(GetType(), $"Appender [{Name}]: {count} event(s) logged before activation could not be queued within {timeout} ms (the worker made no room); they are not delivered.");
                }

                if (_early.Count == 0)
                {
                    TakeOverFromActivation(dispatcher);
                    _early.Detach();
                    _activating = null;
                    _dispatcher = dispatcher; // from now on producers enqueue directly, behind the early events
                    Monitor.PulseAll(_lifecycle);
                    return;
                }
            }

            room.SpinOnce(); // the worker is draining; a hot-swap queue takes only half its capacity before it swaps
        }
    }

    /// <summary>
    /// Under <c>_lifecycle</c>, once the early events are moved or about to be moved by another thread: the activating
    /// thread is not the application's producer, so a producerType=Single ring must not stay bound to it; and the
    /// events dropped before activation join the dispatcher's discards, which the worker reports (a WARN event and an
    /// internal warning).
    /// </summary>
    private void TakeOverFromActivation(AsyncDispatcher<CapturedEvent> dispatcher)
    {
        Debug.Assert(Monitor.IsEntered(_lifecycle));
        dispatcher.ReleaseProducerThread();
        _early.HandDroppedTo(dispatcher);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AppendBeforeActivation(LoggingEvent loggingEvent)
    {
        CapturedEvent captured = CapturedEvent.Capture(loggingEvent, EarlyFlags, objects: true); // children not known yet
        AsyncDispatcher<CapturedEvent>? dispatcher;
        long waitUntil = 0;
        long movesSeen = -1;
        lock (_lifecycle)
        {
            while ((dispatcher = _dispatcher) == null)
            {
                if (_synchronous)
                {
                    break;
                }

                if (!_early.IsOpen)
                {
                    return; // closed before activation
                }

                // While activation moves the early events into the buffer, wait until it is done (under Block a
                // producer waits for room anyway), so the early queue only shrinks and activation finishes. The
                // worker itself never waits (only it makes room), and an appender that nobody activates does not
                // hold the application's threads: beyond the limit its events are counted as dropped.
                if (_activating == null || Thread.CurrentThread == _activating.WorkerThread)
                {
                    _early.Hold(captured); // beyond the limit, counted as dropped
                    return;
                }

                // Bounded: a logging thread waits while activation makes progress, and at most the timeout without any
                // (activation gives up moving then too).
                long now = Stopwatch.GetTimestamp();
                if (_early.Moves != movesSeen)
                {
                    movesSeen = _early.Moves;
                    waitUntil = now + (long)(_settings?.ShutdownTimeout ?? AsyncAppenderSettings.DefaultShutdownTimeout) * Stopwatch.Frequency / 1000;
                }
                else if (now >= waitUntil)
                {
                    _early.CountDropped(); // counted with the discards once activation finishes
                    return;
                }

                Monitor.Wait(_lifecycle, 100);
            }
        }

        if (dispatcher == null)
        {
            ForwardSynchronously(loggingEvent); // the worker could not start meanwhile
            return;
        }

        // Activated meanwhile: the early events are queued already, so this one goes behind them.
        dispatcher.Enqueue(captured, IsDiscardable(loggingEvent.Level));
    }
}
