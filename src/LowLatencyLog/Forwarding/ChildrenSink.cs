using System;
using System.Collections.Generic;
using System.Runtime.CompilerServices;
using System.Threading;
using log4net.Appender;
using log4net.Core;
using log4net.Repository;
using log4net.Util;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine;
using LowLatencyLog.Files;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Forwarding;

/// <summary>
/// The worker's side of an async appender: hands every batch to the child appenders, each child in its own <c>try</c>
/// (captured events as they are to this library's own appenders, rebuilt log4net events to any other), flushes them at
/// the end of a batch, and closes them.
/// </summary>
/// <remarks>
/// Every call but <see cref="ReportError"/> runs on the worker thread, so the fields here need no synchronization.
/// Nothing here logs through log4net (log4net holds logger locks while it closes appenders); diagnostics go to
/// <see cref="LogLog"/> and the appender's error handler.
/// </remarks>
internal sealed class ChildrenSink : IBatchSink<CapturedEvent>
{
    private readonly ChildAppenders _children;
    private readonly Type _appenderType;
    private readonly Func<string> _appenderName;
    private readonly Action<string, Exception?> _reportError;
    private readonly List<FileAppenderFlusher> _fileChildren = new List<FileAppenderFlusher>();
    private readonly object? _guardOwner;
    private ILoggerRepository? _lastRepository;

    // The children as of the last batch, each with where it takes captured events (asked when the children change).
    private IAppender[]? _targetsOf;
    private Child[] _targets = Array.Empty<Child>();

    /// <param name="children">The appender's children, read at every batch (they may change while it runs).</param>
    /// <param name="appenderType">The public appender type: the logger name of the discard warning, the source of internal messages.</param>
    /// <param name="appenderName">The appender's name, for messages.</param>
    /// <param name="reportError">Reports through the appender's error handler; any thread; never throws.</param>
    /// <param name="guardOwner">
    /// The async appender, marked as taking on the worker while a batch or a discard report is delivered: a call a child
    /// makes into this same appender (a layout rendering a property value that logs) is then dropped and counted, as
    /// log4net's forwarding appender drops it on the thread that renders, where it would otherwise be queued behind the
    /// batch and rendered again (a value in the global context that logs would feed itself for good). Flushes and the
    /// close are not guarded, as in log4net.
    /// </param>
    public ChildrenSink(ChildAppenders children, Type appenderType, Func<string> appenderName, Action<string, Exception?> reportError, object? guardOwner = null)
    {
        _guardOwner = guardOwner;
        _children = children;
        _appenderType = appenderType;
        _appenderName = appenderName;
        _reportError = reportError;
    }

    [MethodImpl(Jit.Optimized)]
    public void Deliver(CapturedEvent[] items, int count)
    {
        if (_guardOwner == null)
        {
            DeliverBatch(items, count);
            return;
        }

        ReentrancyGuard guard = ReentrancyGuard.Current;
        int depth = guard.Enter(_guardOwner);
        try
        {
            DeliverBatch(items, count);
        }
        finally
        {
            guard.Exit(depth);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void DeliverBatch(CapturedEvent[] items, int count)
    {
        IAppender[] children = _children.Current;
        _lastRepository = items[count - 1].Repository;
        Child[] targets = ReferenceEquals(children, _targetsOf) ? _targets : TargetsOf(children);

        // Children of this library take the captured events as they are; log4net events are rebuilt only for the
        // others, once per batch. No child: ActivateOptions reported the missing appender-ref.
        LoggingEvent[]? events = null;
        bool handedOut = false;
        foreach (Child child in targets)
        {
            if (child.Target is { } target && TryAppendCaptured(target, child.Appender, items, count))
            {
                continue;
            }

            events ??= Rebuild(items, count);
            DeliverToChild(child.Appender, Share(events, ref handedOut));
        }
    }

    public bool Flush(int timeoutMilliseconds)
    {
        bool flushed = true;
        foreach (IAppender child in _children.Current)
        {
            try
            {
                if (child is FileAppender file)
                {
                    // Never FileAppender.Flush(int): with immediateFlush=false it fails and drops the writer's buffer.
                    FlusherFor(file)?.Flush();
                }
                else if (child is IFlushable flushable && !flushable.Flush(timeoutMilliseconds))
                {
                    flushed = false;
                }
            }
            catch (Exception e)
            {
                flushed = false;
                ReportChildError(child, "flushing", e);
            }
        }

        // A file child removed since its last batch still gets its held events.
        foreach (FileAppenderFlusher flusher in _fileChildren)
        {
            if (flusher.HasHeld)
            {
                TryFlush(flusher);
            }
        }

        return flushed;
    }

    public void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded)
    {
        ReentrancyGuard guard = ReentrancyGuard.Current;
        int depth = _guardOwner != null ? guard.Enter(_guardOwner) : -1;
        try
        {
            ReportDiscardedToChildren(discardedSinceLastReport, totalDiscarded);
        }
        finally
        {
            if (depth >= 0)
            {
                guard.Exit(depth);
            }
        }
    }

    private void ReportDiscardedToChildren(long discardedSinceLastReport, long totalDiscarded)
    {
        string message = $"{discardedSinceLastReport} event(s) were discarded because the buffer of appender [{_appenderName()}] was full " +
            $"({totalDiscarded} in total since it started).";
        LogLog.Warn(_appenderType, message);

        IAppender[] children = _children.Current;
        if (children.Length == 0)
        {
            return;
        }

        var data = new LoggingEventData
        {
            LoggerName = _appenderType.FullName,
            Level = Level.Warn,
            TimeStampUtc = DateTime.UtcNow,
            Message = message,
            ThreadName = Thread.CurrentThread.Name,
            Domain = SystemInfo.ApplicationFriendlyName,
            Properties = new PropertiesDictionary(),
        };
        DeliverToChildren(children, new[] { CapturedEvent.Fixed(new LoggingEvent(null, _lastRepository, data, FixFlags.All)) });
    }

    public void Close()
    {
        foreach (FileAppenderFlusher flusher in _fileChildren)
        {
            TryFlush(flusher);
        }

        foreach (IAppender child in _children.Current)
        {
            try
            {
                child.Close();
            }
            catch (Exception e)
            {
                ReportChildError(child, "closing", e);
            }
        }
    }

    public void ReportError(string message, Exception? exception) => _reportError($"Appender [{_appenderName()}]: {message}", exception);

    private static LoggingEvent[] Rebuild(CapturedEvent[] items, int count)
    {
        var events = new LoggingEvent[count];
        for (int i = 0; i < count; i++)
        {
            events[i] = items[i].Rebuild();
        }

        return events;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private Child[] TargetsOf(IAppender[] children)
    {
        var targets = new Child[children.Length];
        for (int i = 0; i < children.Length; i++)
        {
            targets[i] = new Child(children[i], (children[i] as ICapturedEventAppender)?.Target);
        }

        _targetsOf = children;
        return _targets = targets;
    }

    [MethodImpl(Jit.Optimized)]
    private bool TryAppendCaptured(IBatchTarget<CapturedEvent> target, IAppender child, CapturedEvent[] items, int count)
    {
        try
        {
            return target.TryAppend(items, count);
        }
        catch (Exception e)
        {
            ReportChildError(child, "appending", e);
            return true;
        }
    }

    private void DeliverToChildren(IAppender[] children, LoggingEvent[] events)
    {
        bool handedOut = false;
        foreach (IAppender child in children)
        {
            DeliverToChild(child, Share(events, ref handedOut));
        }
    }

    /// <summary>A bulk child may keep the array it gets: the first child gets the batch itself, every later one a copy.</summary>
    private static LoggingEvent[] Share(LoggingEvent[] events, ref bool handedOut)
    {
        if (!handedOut)
        {
            handedOut = true;
            return events;
        }

        return (LoggingEvent[])events.Clone();
    }

    private void DeliverToChild(IAppender child, LoggingEvent[] batch)
    {
        try
        {
            if (child is FileAppender file && !file.ImmediateFlush)
            {
                FlusherFor(file, create: true)!.Append(batch);
            }
            else if (child is IBulkAppender bulk)
            {
                bulk.DoAppend(batch);
            }
            else
            {
                AppendOneByOne(child, batch);
            }
        }
        catch (Exception e)
        {
            ReportChildError(child, "appending", e);
        }
    }

    private void AppendOneByOne(IAppender child, LoggingEvent[] batch)
    {
        foreach (LoggingEvent loggingEvent in batch)
        {
            try
            {
                child.DoAppend(loggingEvent);
            }
            catch (Exception e)
            {
                ReportChildError(child, "appending", e);
            }
        }
    }

    private FileAppenderFlusher? FlusherFor(FileAppender file, bool create = false)
    {
        foreach (FileAppenderFlusher flusher in _fileChildren)
        {
            if (ReferenceEquals(flusher.Appender, file))
            {
                return flusher;
            }
        }

        if (!create)
        {
            return null;
        }

        var added = new FileAppenderFlusher(file);
        _fileChildren.Add(added);
        return added;
    }

    private void TryFlush(FileAppenderFlusher flusher)
    {
        try
        {
            flusher.Flush();
        }
        catch (Exception e)
        {
            ReportChildError(flusher.Appender, "flushing", e);
        }
    }

    private void ReportChildError(IAppender child, string action, Exception exception) =>
        _reportError($"Appender [{_appenderName()}]: child appender [{child.Name}] failed while {action}; delivery goes on.", exception);

    /// <summary>A child, and where it takes captured events (null: it takes rebuilt log4net events).</summary>
    private readonly struct Child
    {
        public readonly IAppender Appender;
        public readonly IBatchTarget<CapturedEvent>? Target;

        public Child(IAppender appender, IBatchTarget<CapturedEvent>? target)
        {
            Appender = appender;
            Target = target;
        }
    }
}
