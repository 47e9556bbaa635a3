using System;
using System.Threading;
using log4net.Appender;
using log4net.Core;
using log4net.Filter;
using log4net.Util;
using LowLatencyLog.Capture;
using LowLatencyLog.Configuration;
using LowLatencyLog.Engine;
using LowLatencyLog.Forwarding;

namespace LowLatencyLog.Appender;

// AsyncForwardingAppender, continued: the children, the filters, and which fields the capture takes for them.
public abstract partial class AsyncForwardingAppender
{
    /// <summary>
    /// After a child is detached the worker may still be delivering a batch to it, or hold its last event for the
    /// end-of-batch flush (log4net's <c>FileAppender</c>): waits for both, within <see cref="ShutdownTimeout"/>, so
    /// that the child can be closed or used elsewhere (log4net's forwarding appender serializes removal with appends).
    /// </summary>
    private void AwaitDetachedChildren()
    {
        AsyncDispatcher<CapturedEvent>? dispatcher = Lifecycle.Running;
        if (dispatcher != null && Thread.CurrentThread != dispatcher.WorkerThread)
        {
            dispatcher.Flush(Lifecycle.ShutdownTimeout);
        }
    }

    /// <summary>Adds a filter at the end of the chain (a <c>&lt;filter&gt;</c> element).</summary>
    /// <param name="filter">The filter.</param>
    public void AddFilter(IFilter filter)
    {
        if (filter == null)
        {
            throw new ArgumentNullException(nameof(filter));
        }

        lock (_childrenLock)
        {
            FilterAndThreshold current = _admission;
            if (current.Head == null)
            {
                _admission = new FilterAndThreshold(current.Threshold, filter, filter);
            }
            else
            {
                current.Tail!.Next = filter;
                _admission = new FilterAndThreshold(current.Threshold, current.Head, filter);
            }
        }
    }

    /// <summary>Removes every filter.</summary>
    public void ClearFilters()
    {
        lock (_childrenLock)
        {
            _admission = new FilterAndThreshold(_admission.Threshold, null, null);
        }
    }

    /// <summary>Attaches a child appender (an <c>&lt;appender-ref&gt;</c>); safe while events are logged.</summary>
    /// <param name="appender">The child; attaching the same instance twice has no effect.</param>
    public void AddAppender(IAppender appender)
    {
        if (appender == null)
        {
            throw new ArgumentNullException(nameof(appender));
        }

        // Under the lock ResolveCapture reads the children with: activation sees this child, or this call sees the settings.
        lock (_childrenLock)
        {
            if (!_children.Add(appender))
            {
                return;
            }
        }

        AsyncAppenderSettings? settings = Settings;
        if (settings != null)
        {
            ResolveCapture(settings, new[] { appender });
        }
    }

    /// <summary>The attached child of that name, or null.</summary>
    /// <param name="name">The child's name.</param>
    /// <returns>The child, or null.</returns>
    public IAppender? GetAppender(string? name)
    {
        if (name == null)
        {
            return null;
        }

        return _children.Get(name);
    }

    /// <summary>Detaches and closes every child, as log4net's own forwarding appender does, once the worker has
    /// finished the batch it was delivering to them and flushed them.</summary>
    public void RemoveAllAppenders()
    {
        IAppender[] removed = _children.RemoveAll();

        AwaitDetachedChildren();

        foreach (IAppender child in removed)
        {
            try
            {
                child.Close();
            }
            catch (Exception e)
            {
                ReportError($"Appender [{Name}]: closing child appender [{child.Name}] failed.", e);
            }
        }
    }

    /// <summary>Detaches a child without closing it; returns once the worker has finished the batch it was delivering
    /// to it and flushed it, so the caller may close it.</summary>
    /// <param name="appender">The child.</param>
    /// <returns>The child if it was attached, otherwise null.</returns>
    public IAppender? RemoveAppender(IAppender? appender)
    {
        if (appender == null)
        {
            return null;
        }

        if (!_children.Remove(appender))
        {
            return null;
        }

        AwaitDetachedChildren();
        return appender;
    }

    /// <summary>Detaches the child of that name without closing it.</summary>
    /// <param name="name">The child's name.</param>
    /// <returns>The child if it was attached, otherwise null.</returns>
    public IAppender? RemoveAppender(string? name) => RemoveAppender(GetAppender(name));

    /// <summary>Resolves <c>fix=Auto</c> from the children, or warns about what an explicit <c>fix</c> misses;
    /// <paramref name="examined"/> are the children not examined before.</summary>
    private void ResolveCapture(AsyncAppenderSettings settings, IAppender[] examined)
    {
        FixResolver.WarnAboutWorkerAmbient(examined, Warn);
        lock (_childrenLock)
        {
            IAppender[] children = _children.Current;
            _carryObjects = ChildAppenders.MayReadEventObjects(children);
            FixFlags capture = FixResolver.Resolve(settings.Fix, children, Note, Warn);
            _capture = FixResolver.ReadPropertiesAsText(children) ? capture | CapturedContext.PropertiesAsText : capture;
        }

        FixResolver.WarnAboutMisses(settings.Fix, examined, Warn);
    }

    private void Warn(string message) => LogLog.Warn(GetType(), $"Appender [{Name}]: {message}");

    private void Note(string message) => LogLog.Debug(GetType(), $"Appender [{Name}]: {message}");
}
