using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Reflection;
using System.Runtime.ExceptionServices;
using System.Threading;
using log4net;
using log4net.Core;
using log4net.Filter;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>
/// A case's producer threads. The steps run one at a time, in the case's order, each on its thread: the output is
/// then defined (each thread's order, and the order across threads, is the order of the calls), so the files compare
/// byte for byte, and an event that overtakes one made earlier on another thread shows.
/// </summary>
internal sealed class Producers : IDisposable
{
    private readonly List<ThreadSpec> _specs;
    private readonly BlockingCollection<Action>?[] _queues;

    public Producers(List<ThreadSpec> specs)
    {
        _specs = specs;
        _queues = new BlockingCollection<Action>?[specs.Count];
        ManagedIds = new int[specs.Count];
        for (int t = 0; t < specs.Count; t++)
        {
            ThreadSpec spec = specs[t];
            if (spec.Kind == ThreadKind.Pool)
            {
                continue;
            }

            var queue = _queues[t] = new BlockingCollection<Action>();
            Thread Create() => new Thread(
                () =>
                {
                    SetCulture(spec);
                    foreach (Action action in queue.GetConsumingEnumerable())
                    {
                        action();
                    }
                },
                16 * 1024 * 1024) { IsBackground = true };

            // The comparison maps an unnamed thread's id to its index: an id that reads as another producer's name (a
            // name of digits; ids are reused) would map that thread's name too. Such a thread is left unstarted.
            Thread thread = Create();
            var idsTaken = new List<Thread>();
            while (spec.Kind == ThreadKind.Unnamed && specs.Any(s => s.Kind == ThreadKind.Named && s.Name == thread.ManagedThreadId.ToString(CultureInfo.InvariantCulture)))
            {
                idsTaken.Add(thread);
                thread = Create();
            }

            if (spec.Kind == ThreadKind.Named)
            {
                thread.Name = spec.Name;
            }

            thread.Start();
            ManagedIds[t] = thread.ManagedThreadId;
        }
    }

    /// <summary>Each thread's managed id (0 for the pool): log4net's name for a thread without one.</summary>
    public int[] ManagedIds { get; }

    /// <summary>Runs <paramref name="action"/> on thread <paramref name="thread"/> and waits for it; rethrows what it threw.</summary>
    public void Run(int thread, long time, Action action)
    {
        using var done = new ManualResetEventSlim();
        Exception? error = null;
        void Work()
        {
            FixedTimeFilter.Ticks = time;
            try
            {
                action();
            }
            catch (Exception e)
            {
                error = e;
            }
            finally
            {
                FixedTimeFilter.Ticks = 0;
                done.Set();
            }
        }

        if (_queues[thread] is { } queue)
        {
            queue.Add(Work);
        }
        else
        {
            ThreadSpec spec = _specs[thread];
            ThreadPool.UnsafeQueueUserWorkItem(
                _ =>
                {
                    // A pool thread keeps its thread context and culture from earlier work: both are set, then undone.
                    CultureInfo culture = CultureInfo.CurrentCulture, uiCulture = CultureInfo.CurrentUICulture;
                    SetCulture(spec);
                    ThreadContext.Properties.Clear();
                    ThreadContext.Stacks["NDC"].Clear();
                    Work();
                    ThreadContext.Properties.Clear();
                    ThreadContext.Stacks["NDC"].Clear();
                    CultureInfo.CurrentCulture = culture;
                    CultureInfo.CurrentUICulture = uiCulture;
                },
                null);
        }

        done.Wait();
        if (error != null)
        {
            ExceptionDispatchInfo.Throw(error);
        }
    }

    private static void SetCulture(ThreadSpec spec)
    {
        if (spec.Culture != null)
        {
            CultureInfo.CurrentCulture = CultureInfo.CurrentUICulture = spec.CultureInfo;
        }
    }

    public void Dispose()
    {
        foreach (BlockingCollection<Action>? queue in _queues)
        {
            queue?.CompleteAdding();
        }
    }
}

/// <summary>
/// Sets each event's time, at the call, to the time of the step that makes it (nothing when the step has none). The
/// first filter of the first appender on both sides: dates and timestamps then compare unmasked, and a time read
/// anywhere but from the event shows.
/// </summary>
public sealed class FixedTimeFilter : FilterSkeleton
{
    private static readonly FieldInfo Data = typeof(LoggingEvent).GetField("_data", BindingFlags.Instance | BindingFlags.NonPublic)
        ?? throw new InvalidOperationException("log4net's LoggingEvent has no _data field");

    private static readonly PropertyInfo TimeStampUtc = typeof(LoggingEventData).GetProperty(nameof(LoggingEventData.TimeStampUtc))!;

    [ThreadStatic]
    private static long t_ticks;

    /// <summary>The UTC ticks given to the events this thread makes; 0 for none.</summary>
    internal static long Ticks
    {
        get => t_ticks;
        set => t_ticks = value;
    }

    public override FilterDecision Decide(LoggingEvent loggingEvent)
    {
        if (t_ticks != 0)
        {
            object data = Data.GetValue(loggingEvent)!;
            TimeStampUtc.SetValue(data, new DateTime(t_ticks, DateTimeKind.Utc));
            Data.SetValue(loggingEvent, data);
        }

        return FilterDecision.Neutral;
    }
}
