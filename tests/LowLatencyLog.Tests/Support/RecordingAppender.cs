using System;
using System.Collections.Generic;
using System.IO;
using System.Threading;
using log4net.Appender;
using log4net.Core;

namespace LowLatencyLog.Tests.Support;

/// <summary>
/// A child appender for tests: records what it receives (rendered with its layout when it has one), can hold the
/// worker at a gate, throw on chosen events, run an action per event, and lets the test wait for a count with a
/// bounded timeout. It never asserts: the test reads what it recorded.
/// </summary>
public sealed class RecordingAppender : AppenderSkeleton
{
    public static readonly TimeSpan DefaultWait = TimeSpan.FromSeconds(20);

    private readonly object _lock = new object();
    private readonly List<string> _lines = new List<string>();
    private readonly List<LoggingEvent> _events = new List<LoggingEvent>();
    private readonly List<string> _threads = new List<string>();
    private readonly ManualResetEventSlim _gate = new ManualResetEventSlim(true);
    private readonly ManualResetEventSlim _entered = new ManualResetEventSlim(false);
    private int _bulkCalls;
    private int _emptyBulkCalls;
    private int _flushes;

    /// <summary>Throws from Append when this returns true for an event.</summary>
    public Func<LoggingEvent, bool>? ThrowWhen { get; set; }

    /// <summary>Runs inside Append for every event (after the gate), e.g. to log back into log4net.</summary>
    public Action<LoggingEvent>? OnEvent { get; set; }

    /// <summary>Set once Append has been entered (also while it waits at the gate).</summary>
    public ManualResetEventSlim Entered => _entered;

    public string[] Lines
    {
        get { lock (_lock) return _lines.ToArray(); }
    }

    public LoggingEvent[] Events
    {
        get { lock (_lock) return _events.ToArray(); }
    }

    public string[] Threads
    {
        get { lock (_lock) return _threads.ToArray(); }
    }

    public int Count
    {
        get { lock (_lock) return _lines.Count; }
    }

    public int BulkCalls => Volatile.Read(ref _bulkCalls);

    public int EmptyBulkCalls => Volatile.Read(ref _emptyBulkCalls);

    public int Flushes => Volatile.Read(ref _flushes);

    public bool IsWorkerBackground { get; private set; }

    protected override bool RequiresLayout => false;

    /// <summary>Holds the thread that delivers the next events inside Append until <see cref="Open"/>.</summary>
    public void Hold() => _gate.Reset();

    public void Open() => _gate.Set();

    /// <summary>Waits (bounded) until at least <paramref name="count"/> events were recorded.</summary>
    public bool WaitForCount(int count, TimeSpan? timeout = null)
    {
        var deadline = DateTime.UtcNow + (timeout ?? DefaultWait);
        lock (_lock)
        {
            while (_lines.Count < count)
            {
                TimeSpan left = deadline - DateTime.UtcNow;
                if (left <= TimeSpan.Zero)
                {
                    return false;
                }

                Monitor.Wait(_lock, left);
            }

            return true;
        }
    }

    public override bool Flush(int millisecondsTimeout)
    {
        Interlocked.Increment(ref _flushes);
        return true;
    }

    protected override void Append(IEnumerable<LoggingEvent> loggingEvents)
    {
        Interlocked.Increment(ref _bulkCalls);
        bool any = false;
        foreach (LoggingEvent loggingEvent in loggingEvents)
        {
            any = true;
            Append(loggingEvent);
        }

        if (!any)
        {
            Interlocked.Increment(ref _emptyBulkCalls);
        }
    }

    protected override void Append(LoggingEvent loggingEvent)
    {
        _entered.Set();
        _gate.Wait();
        IsWorkerBackground = Thread.CurrentThread.IsBackground;
        if (ThrowWhen != null && ThrowWhen(loggingEvent))
        {
            throw new InvalidOperationException("child failure for " + loggingEvent.RenderedMessage);
        }

        OnEvent?.Invoke(loggingEvent);
        string line;
        if (Layout == null)
        {
            line = loggingEvent.RenderedMessage ?? "";
        }
        else
        {
            var writer = new StringWriter();
            RenderLoggingEvent(writer, loggingEvent);
            line = writer.ToString().TrimEnd('\r', '\n');
        }

        lock (_lock)
        {
            _lines.Add(line);
            _events.Add(loggingEvent);
            _threads.Add(Thread.CurrentThread.Name ?? "");
            Monitor.PulseAll(_lock);
        }
    }
}

/// <summary>An <see cref="IAppender"/> without <see cref="IBulkAppender"/>: gets events one at a time; may throw.</summary>
public sealed class PlainAppender : IAppender
{
    private readonly object _lock = new object();
    private readonly List<string> _messages = new List<string>();

    public string Name { get; set; } = "";

    public Func<LoggingEvent, bool>? ThrowWhen { get; set; }

    public int Closed { get; private set; }

    public string[] Messages
    {
        get { lock (_lock) return _messages.ToArray(); }
    }

    public void Close() => Closed++;

    public void DoAppend(LoggingEvent loggingEvent)
    {
        if (ThrowWhen != null && ThrowWhen(loggingEvent))
        {
            throw new InvalidOperationException("plain child failure");
        }

        lock (_lock)
        {
            _messages.Add(loggingEvent.RenderedMessage ?? "");
        }
    }
}

/// <summary>Records every error reported to it; thread-safe.</summary>
public sealed class RecordingErrorHandler : IErrorHandler
{
    private readonly object _lock = new object();
    private readonly List<string> _errors = new List<string>();

    public string[] Errors
    {
        get { lock (_lock) return _errors.ToArray(); }
    }

    public void Error(string message, Exception? e, ErrorCode errorCode) => Add(message + (e == null ? "" : " | " + e.Message));

    public void Error(string message, Exception? e) => Add(message + (e == null ? "" : " | " + e.Message));

    public void Error(string message) => Add(message);

    private void Add(string message)
    {
        lock (_lock)
        {
            _errors.Add(message);
        }
    }
}

/// <summary>
/// Checks, per producer, that events "p:i" arrive exactly once and in order; counts what it saw. Bulk and
/// one-at-a-time variants share it. Records problems instead of asserting (it runs on the worker).
/// </summary>
public sealed class SequenceChecker
{
    private readonly object _lock = new object();
    private readonly Dictionary<int, int> _next = new Dictionary<int, int>();
    private readonly List<string> _problems = new List<string>();
    private long _count;

    public long Count => Interlocked.Read(ref _count);

    public string[] Problems
    {
        get { lock (_lock) return _problems.ToArray(); }
    }

    public int NextOf(int producer)
    {
        lock (_lock) return _next.TryGetValue(producer, out int next) ? next : 0;
    }

    public void See(string? message)
    {
        int colon = message?.IndexOf(':') ?? -1;
        if (message == null || colon < 0)
        {
            return; // not a sequenced event (a discard warning)
        }

        int producer = int.Parse(message.Substring(0, colon));
        int sequence = int.Parse(message.Substring(colon + 1));
        lock (_lock)
        {
            int expected = _next.TryGetValue(producer, out int next) ? next : 0;
            if (sequence != expected && _problems.Count < 20)
            {
                _problems.Add($"producer {producer}: expected {expected}, got {sequence}");
            }

            _next[producer] = sequence + 1;
        }

        Interlocked.Increment(ref _count);
    }
}

/// <summary>Bulk child that checks sequences.</summary>
public sealed class SequenceCheckingAppender : AppenderSkeleton
{
    public SequenceChecker Checker { get; } = new SequenceChecker();

    protected override bool RequiresLayout => false;

    protected override void Append(LoggingEvent loggingEvent) => Checker.See(loggingEvent.RenderedMessage);
}

/// <summary>One-at-a-time child that checks sequences.</summary>
public sealed class PlainSequenceCheckingAppender : IAppender
{
    public SequenceChecker Checker { get; } = new SequenceChecker();

    public string Name { get; set; } = "";

    public void Close()
    {
    }

    public void DoAppend(LoggingEvent loggingEvent) => Checker.See(loggingEvent.RenderedMessage);
}

/// <summary>A log4net forwarding appender that runs an action when log4net closes it (during shutdown, under the
/// logger's lock, before the appenders attached after it).</summary>
public sealed class SignalOnCloseAppender : log4net.Appender.ForwardingAppender
{
    public Action? OnClosing { get; set; }

    protected override void OnClose()
    {
        OnClosing?.Invoke();
        base.OnClose();
    }
}

/// <summary>Logs one event through its repository while log4net activates it (as a child, before its parent).</summary>
public sealed class ActivationLoggingAppender : AppenderSkeleton
{
    public const string Message = "logged while activating";

    public string RepositoryName { get; set; } = "";

    public bool Logged { get; private set; }

    protected override bool RequiresLayout => false;

    public override void ActivateOptions()
    {
        base.ActivateOptions();
        log4net.LogManager.GetLogger(RepositoryName, "activation").Info(Message);
        Logged = true;
    }

    protected override void Append(LoggingEvent loggingEvent)
    {
    }
}
