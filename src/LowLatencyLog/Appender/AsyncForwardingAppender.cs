using System;
using System.Runtime.CompilerServices;
using System.Threading;
using log4net.Appender;
using log4net.Core;
using log4net.Filter;
using log4net.Util;
using LowLatencyLog.Capture;
using LowLatencyLog.Configuration;
using LowLatencyLog.Engine;
using LowLatencyLog.Forwarding;
using LowLatencyLog.Log4netInternals;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Appender;

/// <summary>
/// The behaviour the asynchronous appenders share: the calling thread captures the event into a queue slot and
/// returns; one background worker thread delivers the events in batches to the attached appenders
/// (<c>&lt;appender-ref&gt;</c>), flushes them when the queue runs empty, and drains the queue on <see cref="Close"/>.
/// </summary>
/// <remarks>
/// <para>Use one of the concrete appenders (<see cref="BoundedQueueAsyncAppender"/>, <see cref="HotSwapAsyncAppender"/>,
/// <see cref="DisruptorAsyncAppender"/>);
/// they differ only in the queue between the callers and the worker.</para>
/// <para>The appender implements log4net's interfaces directly rather than through <see cref="AppenderSkeleton"/>,
/// whose per-event lock would serialize every calling thread: <see cref="Threshold"/> and the filters run on the
/// calling threads concurrently, without a lock (log4net's own filters are safe for that).</para>
/// <para>Settings are strings and are read once, at <see cref="ActivateOptions"/>: a bad value is reported through
/// log4net's internal log (<c>LogLog.Error</c>: the setting, the value, the accepted values, the default used) and the
/// default applies, so a typo never makes log4net drop the appender.</para>
/// <para>Events are rebuilt for the children with exactly the fields <see cref="Fix"/> captured; the object forms of
/// the message and exception (<c>MessageObject</c>, <c>ExceptionObject</c>, used by <c>%exception{message}</c>) are
/// not carried over, only their rendered text.</para>
/// </remarks>
public abstract partial class AsyncForwardingAppender : IAppender, IBulkAppender, IOptionHandler, IFlushable, IAppenderAttachable, IFastTarget
{
    private const int MaxBatchSize = 1024;

    /// <summary>What is captured before activation, when the children's needs are not known yet: everything but the
    /// costly stack walk for the location.</summary>
    private const FixFlags EarlyFlags = FixResolver.Capturable & ~FixFlags.LocationInfo;

    // Read by the calling threads on every event.
    private volatile AsyncDispatcher<CapturedEvent>? _dispatcher;
    private volatile FilterAndThreshold _admission = FilterAndThreshold.Empty; // replaced under _childrenLock
    private FixFlags _capture = FixResolver.Always; // written under _childrenLock, read racily: a flag set is atomic
    private volatile bool _carryObjects = true; // with _capture: some child may read the event's message and exception objects
    private int _discardThresholdValue = AsyncAppenderSettings.DefaultDiscardThreshold.Value;
    private long _failed; // log calls whose event could not be queued: counted as discarded
    private volatile bool _fastPath; // from the fastPath setting, at activation

    private readonly object _childrenLock = new object();
    private readonly ChildAppenders _children = new ChildAppenders();

    private volatile IErrorHandler _errorHandler;
    private VisibleReports? _visible;

    private protected AsyncForwardingAppender()
    {
        _errorHandler = new OnlyOnceErrorHandler(GetType().Name);
        Lifecycle = new AppenderLifecycle(
            new LifecycleHooks(GetType(), () => Name, _children, ReportError, CreateDispatcher)
            {
                Reactivate = () => ResolveCapture(Settings!, _children.Current),
                Publish = dispatcher => _dispatcher = dispatcher,
                RegisterMetrics = RegisterMetrics,
            },
            AsyncAppenderSettings.DefaultShutdownTimeout);
    }

    /// <summary>The appender's name, from the <c>name</c> attribute in the configuration.</summary>
    public string Name { get; set; } = string.Empty;

    // The settings, as text: read once at activation by Configuration/AsyncAppenderSettings.

    /// <summary>Capacity of the buffer between the calling threads and the worker, in events (setting <c>bufferSize</c>).</summary>
    /// <remarks>Default: 8192. A whole number from 1 to 16777216. The bounded queue rounds it up to a power of two.</remarks>
    public string? BufferSize { get; set; }

    /// <summary>What a calling thread does when the buffer is full (setting <c>overflow</c>): <c>Block</c> (wait for
    /// room), <c>Discard</c> (drop events at or below <see cref="DiscardThreshold"/>, count them, and report them), or
    /// <c>Grow</c> (allocate more room; memory is then bounded only by how fast the worker drains).</summary>
    /// <remarks>Default: <c>Block</c>.</remarks>
    public string? Overflow { get; set; }

    /// <summary>With <c>overflow=Discard</c>, the most severe level that may be dropped when the buffer is full; more
    /// severe events wait for room instead (setting <c>discardThreshold</c>, one of log4net's level names).</summary>
    /// <remarks>Default: <c>INFO</c>, so warnings and errors are never dropped. Exception: an event logged by a child
    /// appender from the worker thread itself (while it is flushed or closed; while it is delivered to, such a call is
    /// re-entrant) is dropped and counted when the buffer is full, whatever its level, because only the worker makes
    /// room.</remarks>
    public string? DiscardThreshold { get; set; }

    /// <summary>Which volatile fields are captured on the calling thread (setting <c>fix</c>): <c>Auto</c>, or log4net
    /// <see cref="FixFlags"/> names separated by commas, such as <c>Message, ThreadName, Exception, Properties</c>.</summary>
    /// <remarks>Default: <c>Auto</c>: the message, thread name and exception always, plus properties (<c>%property</c>,
    /// <c>%ndc</c>, <c>%mdc</c>), location (<c>%location</c>, <c>%line</c>, <c>%method</c>, <c>%file</c>,
    /// <c>%type</c>), user name or identity when a child's layout uses them, searching appenders nested under the
    /// children too; a layout of unknown type, or a child without a layout, gets <c>Partial</c>. With an explicit value,
    /// a field a child's layout uses but <c>fix</c> leaves out renders empty, and activation writes a log4net internal
    /// warning naming the child and the missing flags.</remarks>
    public string? Fix { get; set; }

    /// <summary>How long <see cref="Close"/> may take to deliver what is queued, in milliseconds (setting
    /// <c>shutdownTimeout</c>).</summary>
    /// <remarks>Default: 5000. Events still queued when it passes are counted in <see cref="UndeliveredCount"/> and
    /// reported through the <see cref="ErrorHandler"/>. On .NET Framework the process-exit hook that closes log4net
    /// has about 2 seconds in total.</remarks>
    public string? ShutdownTimeout { get; set; }

    /// <summary>How the worker waits for events when the buffer is empty (setting <c>waitStrategy</c>): <c>Adaptive</c>
    /// (polls every 4 ms and parks after a second without events: calling threads never pay a wake-up while the
    /// application keeps logging, only the first call after a second of silence does), <c>Blocking</c> (parks as soon as
    /// the buffer is empty: no CPU while idle, but the calling thread that finds it parked pays the wake-up, a system
    /// call of a few microseconds), <c>Sleeping</c> (yields, then sleeps a millisecond at a time, never parks),
    /// <c>Yielding</c> (yields in a loop: low latency, a busy core while idle) or <c>BusySpin</c> (spins: the lowest
    /// latency, a whole core always).</summary>
    /// <remarks>Default: <c>Adaptive</c>.</remarks>
    public string? WaitStrategy { get; set; }

    /// <summary>Whether calls the package's source generator intercepts may write into the buffer directly, without a
    /// log4net <see cref="LoggingEvent"/>, when every appender their logger reaches allows it (setting <c>fastPath</c>:
    /// <c>true</c> or <c>false</c>).</summary>
    /// <remarks>Default: <c>true</c>. The MSBuild property <c>LowLatencyLogFastPath=false</c> turns it off for a whole
    /// application. What the children receive is the same either way.</remarks>
    public string? FastPath { get; set; }

    /// <summary>Events below this level are ignored on the calling thread, before anything is queued.</summary>
    /// <remarks>Default: none (every level passes).</remarks>
    public Level? Threshold
    {
        get => _admission.Threshold;
        set
        {
            lock (_childrenLock)
            {
                _admission = new FilterAndThreshold(value, _admission.Head, _admission.Tail);
            }
        }
    }

    /// <summary>The first filter of the chain (<c>&lt;filter&gt;</c> elements), applied on the calling thread before
    /// anything is queued.</summary>
    public IFilter? FilterHead => _admission.Head;

    /// <summary>Where the appender and its worker report failures: a child that throws, a timed-out close, events
    /// logged after close.</summary>
    /// <remarks>Default: log4net's <see cref="OnlyOnceErrorHandler"/>, which reports the first error to the internal
    /// log. It is called from the worker and from calling threads, so a replacement must be thread-safe.</remarks>
    public IErrorHandler ErrorHandler
    {
        get => _errorHandler;
        set
        {
            if (value == null)
            {
                LogLog.Warn(GetType(), $"Appender [{Name}]: the error handler cannot be set to null; the current one is kept.");
                return;
            }

            _errorHandler = value;
        }
    }

    /// <summary>Events dropped because the buffer was full (<c>overflow=Discard</c>, or an event a child logged from the
    /// worker thread that found the buffer full), and log calls that failed to queue their event (the capture or the
    /// copy into the buffer threw, or the thread was interrupted while it waited for room; each is reported through
    /// the <see cref="ErrorHandler"/>). Each catch-up of the first kind is also reported to the children as one
    /// <c>WARN</c> event.</summary>
    public long DiscardedCount => (Lifecycle.Running?.DiscardedCount ?? 0) + Lifecycle.DroppedBeforeActivation + Interlocked.Read(ref _failed);

    /// <summary>Events delivered to the children.</summary>
    public long DeliveredCount => Lifecycle.Running?.DeliveredCount ?? 0;

    /// <summary>Events accepted but not delivered because <see cref="Close"/> ran out of time
    /// (<see cref="ShutdownTimeout"/>).</summary>
    public long UndeliveredCount => (Lifecycle.Running?.UndeliveredCount ?? 0) + Lifecycle.UndeliveredBeforeActivation;

    /// <summary>The attached child appenders (a read-only copy).</summary>
    public AppenderCollection Appenders => AppenderCollection.ReadOnly(new AppenderCollection(_children.Current));

    /// <summary>Activation, the events before it, the synchronous fallback, and close.</summary>
    internal AppenderLifecycle Lifecycle { get; }

    /// <summary>The settings as read at the first activation; null before.</summary>
    internal AsyncAppenderSettings? Settings { get; private set; }

    /// <summary>The queue this appender runs on, created at activation.</summary>
    private protected abstract IQueueFactory CreateQueueFactory(Action<string> reportError);

    /// <summary>Reads the settings, resolves <see cref="Fix"/>, and starts the worker. Events appended before this call
    /// are delivered first. Never throws: problems go to log4net's internal log.</summary>
    public void ActivateOptions()
    {
        try
        {
            PrivateMembers.ReportOnce(GetType());
            Lifecycle.Activate();
        }
        catch (Exception e)
        {
            LogLog.Error(GetType(), $"Appender [{Name}] failed to activate.", e);
        }
    }

    /// <summary>Captures the event on the calling thread and queues it for the worker. Never throws.</summary>
    /// <param name="loggingEvent">The event; it is only read, never fixed or kept by the worker.</param>
    /// <remarks>A call made on the same thread while this appender takes an event (an argument's <c>ToString()</c>,
    /// a filter or a property provider that logs), or by a child while the worker delivers to it, is not taken, as
    /// log4net's <c>AppenderSkeleton</c> drops it; it is counted (<see cref="ReentrantCount"/>).</remarks>
    [MethodImpl(Jit.Optimized)]
    public void DoAppend(LoggingEvent loggingEvent)
    {
        if (!TryTake(out ReentrancyGuard thread, out int depth, out object?[] taking))
        {
            return;
        }

        try
        {
            if (_admission.Admits(loggingEvent))
            {
                AsyncDispatcher<CapturedEvent>? dispatcher = _dispatcher;
                if (dispatcher != null)
                {
                    // The item may hold this thread's formatting builder: the queue copies it, then it is given back.
                    CapturedEvent captured = CapturedEvent.CaptureForQueue(loggingEvent, _capture, _carryObjects);
                    dispatcher.Enqueue(captured, IsDiscardable(captured.Level));
                    CapturedEvent.Release(in captured);
                }
                else if (Lifecycle.Synchronous)
                {
                    Lifecycle.ForwardSynchronously(loggingEvent);
                }
                else
                {
                    AppendBeforeActivation(loggingEvent);
                }
            }
        }
        catch (ThreadInterruptedException e)
        {
            // The application interrupted its thread while it waited for room: the event is not queued, and the
            // interrupt is set again so that the application's own next wait still sees it.
            ReportProducerError(e);
            Thread.CurrentThread.Interrupt();
        }
        catch (Exception e)
        {
            ReportProducerError(e);
        }
        finally
        {
            // In a finally: on .NET Framework an abort (a request timeout) is raised again at the end of the catch, and
            // a pooled thread whose guard stayed set would drop every later call as re-entrant.
            taking[depth] = null;
            thread.Depth = depth;
        }
    }

    /// <summary>A fast call's capture: the slot's fields and the caller's location, nothing that needs an event
    /// (<see cref="CapturedContext.PropertiesAsText"/> says how properties would be read, and none are).</summary>
    private const FixFlags FastFlags =
        CapturedEvent.SlotFlags | FixFlags.LocationInfo | CallerLocation.MethodOnly | CallerLocation.WithFile | CapturedContext.PropertiesAsText;

    /// <inheritdoc/>
    bool IFastTarget.TakesFastCalls(out FixFlags capture, out bool objects)
    {
        capture = _capture;
        objects = _carryObjects;
        return _fastPath && _dispatcher != null && _admission.Head == null && (capture & ~FastFlags) == 0 &&
            ((capture & FixFlags.LocationInfo) == 0 || (capture & (CallerLocation.MethodOnly | CallerLocation.WithFile)) != 0);
    }

    /// <inheritdoc/>
    [MethodImpl(Jit.Optimized)]
    void IFastTarget.AppendFast(in FastCall call, CallerLocation? caller)
    {
        if (!TryTake(out ReentrancyGuard thread, out int depth, out object?[] taking))
        {
            return;
        }

        try
        {
            Level? threshold = _admission.Threshold;
            if (threshold != null && call.Level.Value < threshold.Value)
            {
                return;
            }

            AsyncDispatcher<CapturedEvent>? dispatcher = _dispatcher;
            FixFlags capture = _capture;
            bool location = (capture & FixFlags.LocationInfo) != 0;
            bool objects = _carryObjects;
            if (dispatcher != null && (capture & ~FastFlags) == 0 && (caller != null || !location) && (call.HasMessageObject || !objects))
            {
                CapturedEvent captured = CapturedEvent.CaptureFast(in call, capture, location ? caller : null, objects);
                dispatcher.Enqueue(captured, IsDiscardable(captured.Level));
                CapturedEvent.Release(in captured);
                return;
            }
        }
        catch (ThreadInterruptedException e)
        {
            ReportProducerError(e);
            Thread.CurrentThread.Interrupt();
            return;
        }
        catch (Exception e)
        {
            ReportProducerError(e);
            return;
        }
        finally
        {
            taking[depth] = null;
            thread.Depth = depth;
        }

        AppendChanged(in call);
    }

    /// <summary>A fast call to an appender whose state changed since its route was checked (closed, reconfigured):
    /// the event log4net would have built, through <see cref="DoAppend(LoggingEvent)"/>.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AppendChanged(in FastCall call)
    {
        object? message = call.MessageObject();
        KnownCallSite.Scope scope = KnownCallSite.Enter(call.Site, message);
        try
        {
            DoAppend(call.ToLoggingEvent(message));
        }
        finally
        {
            scope.Exit();
        }
    }

    /// <summary>Queues each event as <see cref="DoAppend(LoggingEvent)"/> does. Never throws.</summary>
    /// <param name="loggingEvents">The events.</param>
    public void DoAppend(LoggingEvent[] loggingEvents)
    {
        if (loggingEvents == null)
        {
            return;
        }

        foreach (LoggingEvent loggingEvent in loggingEvents)
        {
            DoAppend(loggingEvent);
        }
    }

    /// <summary>Waits until every event appended before the call has reached the children and the children are
    /// flushed.</summary>
    /// <param name="millisecondsTimeout">How long to wait; <c>-1</c> waits as long as it takes.</param>
    /// <returns>True when everything was delivered and flushed; false if the timeout passed first, a child's flush
    /// failed, or the appender was closed with events left over.</returns>
    public bool Flush(int millisecondsTimeout) => Lifecycle.Flush(millisecondsTimeout);

    /// <summary>Stops accepting events, delivers what is queued within <see cref="ShutdownTimeout"/>, then flushes and
    /// closes the children. Idempotent; returns at once on an appender that was never activated.</summary>
    public void Close() => Lifecycle.Close();

    /// <summary>First activation, under the lifecycle's lock: reads the settings, resolves the capture, and creates
    /// the one dispatcher (started by the lifecycle).</summary>
    private AsyncDispatcher<CapturedEvent> CreateDispatcher(out int shutdownTimeout)
    {
        Action<string> reportError = message => LogLog.Error(GetType(), $"Appender [{Name}]: {message}");
        IQueueFactory queueFactory = CreateQueueFactory(reportError);
        AsyncAppenderSettings settings = AsyncAppenderSettings.Read(
            BufferSize, Overflow, DiscardThreshold, Fix, ShutdownTimeout, WaitStrategy, queueFactory.SupportsGrow, queueFactory.RequiresPowerOfTwo, reportError);
        if (_children.Current.Length == 0)
        {
            LogLog.Error(GetType(), $"Appender [{Name}] has no appender to forward to: add at least one <appender-ref ref=\"...\"/>. Events it receives are dropped until one is attached.");
        }

        _discardThresholdValue = settings.DiscardThreshold.Value;
        _fastPath = SettingReader.Boolean("fastPath", FastPath, true, reportError) && FastCall.Enabled;
        Settings = settings;
        ResolveCapture(settings, _children.Current);

        shutdownTimeout = settings.ShutdownTimeout;
        return new AsyncDispatcher<CapturedEvent>(
            string.IsNullOrEmpty(Name) ? GetType().Name : Name,
            queueFactory,
            settings.BufferSize,
            new ChildrenSink(_children, GetType(), () => Name, ReportError, guardOwner: this),
            settings.Overflow,
            MaxBatchSize,
            settings.WaitStrategy,
            settings.ShutdownTimeout);
    }

    private IDisposable RegisterMetrics(AsyncDispatcher<CapturedEvent> dispatcher) =>
        AppenderMetrics.Register(
            string.IsNullOrEmpty(Name) ? GetType().Name : Name,
            () => dispatcher.AcceptedCount,
            () => dispatcher.DeliveredCount,
            () => DiscardedCount,
            () => dispatcher.QueueDepth,
            () => ReentrantCount);

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void AppendBeforeActivation(LoggingEvent loggingEvent)
    {
        CapturedEvent captured = CapturedEvent.Capture(loggingEvent, EarlyFlags, objects: true); // children not known yet
        AsyncDispatcher<CapturedEvent>? dispatcher = Lifecycle.TakeBeforeActivation(in captured, loggingEvent);
        if (dispatcher != null)
        {
            // Activated meanwhile: the early events are queued already, so this one goes behind them.
            dispatcher.Enqueue(captured, IsDiscardable(loggingEvent.Level));
        }
    }

    /// <summary>The appender's type and name.</summary>
    /// <returns>A description for diagnostics.</returns>
    public override string ToString() => $"{GetType().Name} [{Name}]";

    private void ReportError(string message, Exception? exception)
    {
        // Losses and failures show in log4net's internal log whatever the error handler did with earlier ones.
        if (VisibleReports.Needed(_errorHandler))
        {
            (_visible ??= new VisibleReports(GetType())).Error(VisibleReports.KindOf(message), message, exception);
        }
        try
        {
            _errorHandler.Error(message, exception, ErrorCode.GenericFailure);
        }
        catch
        {
            // The error handler itself failed: nowhere left to report, and no log call may throw.
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReportProducerError(Exception e)
    {
        Interlocked.Increment(ref _failed);
        ReportError($"Appender [{Name}] failed to queue an event.", e);
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool IsDiscardable(Level? level) => level == null || level.Value <= _discardThresholdValue;
}
