using System;
using System.Collections.Generic;
using System.Diagnostics;
using log4net.Appender;
using log4net.Util;

namespace LowLatencyLog.Forwarding;

/// <summary>
/// Async 16: when the process is about to die of an unhandled exception, the async appenders deliver what they hold
/// and the file appenders write and flush their buffers, so the lines that explain the crash reach the file. log4net's
/// own shutdown runs at a normal exit only; a crash skips it.
/// </summary>
/// <remarks>
/// One handler for the process, added with the first appender that registers and removed when the last one is closed.
/// The async appenders go first (they hand their events to the file appenders), then the file appenders; the whole is
/// bounded by the longest <c>shutdownTimeout</c> of the async appenders (5 s by default). The handler never throws.
/// </remarks>
internal static class CrashFlush
{
    private static readonly object Lock = new object();
    private static readonly List<Entry> Registered = new List<Entry>();
    private static bool _subscribed; // under Lock

    /// <summary>Registers an appender to flush on a crash, with the longest the flush may take.</summary>
    /// <param name="appender">The appender.</param>
    /// <param name="timeoutMilliseconds">Its bound (an async appender's <c>shutdownTimeout</c>).</param>
    /// <param name="async">An async appender, flushed before the file appenders it feeds.</param>
    public static void Register(IFlushable appender, int timeoutMilliseconds, bool async)
    {
        lock (Lock)
        {
            // An appender dropped without Close is not kept alive by this list (weak references), and leaves it here.
            Registered.RemoveAll(e => e.Appender == null);
            foreach (Entry entry in Registered)
            {
                if (ReferenceEquals(entry.Appender, appender))
                {
                    return;
                }
            }

            Registered.Add(new Entry(appender, timeoutMilliseconds, async));
            if (!_subscribed)
            {
                AppDomain.CurrentDomain.UnhandledException += OnUnhandledException;
                _subscribed = true;
            }
        }
    }

    /// <summary>Forgets an appender that was closed; the last one takes the handler away.</summary>
    public static void Unregister(IFlushable appender)
    {
        lock (Lock)
        {
            Registered.RemoveAll(e => e.Appender == null);
            int index = Registered.FindIndex(e => ReferenceEquals(e.Appender, appender));
            if (index >= 0)
            {
                Registered.RemoveAt(index);
            }

            if (Registered.Count == 0 && _subscribed)
            {
                AppDomain.CurrentDomain.UnhandledException -= OnUnhandledException;
                _subscribed = false;
            }
        }
    }

    /// <summary>Flushes every registered appender: the async ones first, then the files. Never throws.</summary>
    internal static void FlushAll()
    {
        Entry[] entries;
        lock (Lock)
        {
            entries = Registered.ToArray();
        }

        int timeout = 0;
        foreach (Entry entry in entries)
        {
            timeout = Math.Max(timeout, entry.Timeout);
        }

        long deadline = Stopwatch.GetTimestamp() + (long)timeout * Stopwatch.Frequency / 1000;
        foreach (bool async in new[] { true, false })
        {
            foreach (Entry entry in entries)
            {
                if (entry.Async != async)
                {
                    continue;
                }

                try
                {
                    long left = (deadline - Stopwatch.GetTimestamp()) * 1000 / Stopwatch.Frequency;
                    entry.Appender?.Flush((int)Math.Max(0, left));
                }
                catch (Exception e)
                {
                    try
                    {
                        LogLog.Error(typeof(CrashFlush), "Flushing an appender before the process ends failed.", e);
                    }
                    catch
                    {
                        // The process is dying; nothing may escape from here.
                    }
                }
            }
        }
    }

    private static void OnUnhandledException(object sender, UnhandledExceptionEventArgs e)
    {
        try
        {
            FlushAll();
        }
        catch
        {
            // Never let the handler add its own failure to the crash.
        }
    }

    private sealed class Entry
    {
        private readonly WeakReference<IFlushable> _appender;

        public Entry(IFlushable appender, int timeout, bool async)
        {
            _appender = new WeakReference<IFlushable>(appender);
            Timeout = timeout;
            Async = async;
        }

        public bool Async { get; }

        /// <summary>Null once the appender was collected without being closed.</summary>
        public IFlushable? Appender => _appender.TryGetTarget(out IFlushable? appender) ? appender : null;

        public int Timeout { get; }
    }
}
