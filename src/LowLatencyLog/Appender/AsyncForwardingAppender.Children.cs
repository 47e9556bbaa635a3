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
        AsyncDispatcher<CapturedEvent>? dispatcher = Running;
        if (dispatcher != null && Thread.CurrentThread != dispatcher.WorkerThread)
        {
            dispatcher.Flush(_settings?.ShutdownTimeout ?? AsyncAppenderSettings.DefaultShutdownTimeout);
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

        AsyncAppenderSettings? settings = _settings;
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

    /// <summary>Resolves <c>fix=Auto</c> from the children, or warns about what an explicit <c>fix</c> misses.</summary>
    /// <summary>Whether any child may read the original message and exception objects (async 15, docs/behaviours.md): every child but
    /// the library's own appenders that write captured events as they are.</summary>
    private static bool CarriesObjects(IAppender[] children)
    {
        foreach (IAppender child in children)
        {
            if (child is not ICapturedEventAppender direct || direct.MayReadEventObjects)
            {
                return true;
            }
        }

        return false;
    }

    private void ResolveCapture(AsyncAppenderSettings settings, IAppender[] examined)
    {
        foreach (IAppender child in examined)
        {
            foreach ((IAppender appender, string converter) in FixResolver.WorkerAmbientConverters(child))
            {
                LogLog.Warn(GetType(), $"Appender [{Name}]: the layout of appender [{appender.Name}] uses {converter}, which reads the current " +
                    "HTTP request when the event is written: behind an async appender that is the worker thread, which has none, so it writes " +
                    "what it writes without a request. Set the value as a property on the logging thread (for example " +
                    "LogicalThreadContext.Properties[\"url\"] in a request filter) and write %property{url} instead.");
            }
        }

        lock (_childrenLock)
        {
            IAppender[] children = _children.Current;
            _carryObjects = CarriesObjects(children);
            if (settings.Fix == null)
            {
                FixFlags flags = FixResolver.Always;
                foreach (IAppender child in children)
                {
                    flags |= FixResolver.Required(child);
                    if (!FixResolver.IsKnownType(child))
                    {
                        LogLog.Debug(GetType(), $"Appender [{Name}]: fix=Auto captures the properties for appender [{child.Name}], whose type ({child.GetType().FullName}) it does not know; set fix to leave them out.");
                    }
                }

                _capture = WithLocationCapture(flags, children);
                return;
            }

            _capture = WithLocationCapture(settings.Fix.Value, children);
        }

        foreach (IAppender child in examined)
        {
            FixFlags missing = FixResolver.Required(child) & ~settings.Fix.Value;
            if (missing != FixFlags.None)
            {
                LogLog.Warn(GetType(), $"Appender [{Name}]: fix={settings.Fix.Value} does not capture {missing}, which appender [{child.Name}] uses; " +
                    "those fields reach it empty. Add them to fix, or use fix=Auto.");
            }
        }
    }

    /// <summary>
    /// With location in <paramref name="flags"/>: says which child's layout makes every call read the stack, and marks
    /// how little of the caller the layouts need (<see cref="CallerLocation"/>), so the logging thread reads only that.
    /// </summary>
    private FixFlags WithLocationCapture(FixFlags flags, IAppender[] children)
    {
        if ((flags & FixFlags.LocationInfo) == 0)
        {
            return flags;
        }

        var use = FixResolver.LocationUse.None;
        foreach (IAppender child in children)
        {
            (FixResolver.LocationUse childUse, string[] readers) = FixResolver.Location(child);
            use |= childUse;
            if (readers.Length > 0)
            {
                LogLog.Warn(GetType(), $"Appender [{Name}]: appender [{child.Name}] writes the caller's location " +
                    $"({string.Join(", ", readers)}): every log call then reads the calling thread's stack, the one setting that makes " +
                    "each call cost microseconds (except C# ILog calls the package intercepts at compile time). See the README, \"Caller location\".");
            }
        }

        if (use == FixResolver.LocationUse.None || (use & FixResolver.LocationUse.Everything) != 0)
        {
            return flags; // log4net's own LocationInfo, stack frames included
        }

        return flags | ((use & FixResolver.LocationUse.FileAndLine) != 0 ? CallerLocation.WithFile : CallerLocation.MethodOnly);
    }

    private void CloseChildren()
    {
        foreach (IAppender child in _children.Current)
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
}
