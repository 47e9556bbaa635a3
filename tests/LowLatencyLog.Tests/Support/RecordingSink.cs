using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using LowLatencyLog.Engine;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Support;

/// <summary>
/// A sink that records everything the worker does to it, can hold the worker at a gate, and lets a test wait for a
/// condition with a bounded timeout instead of sleeping.
/// </summary>
internal sealed class RecordingSink : IBatchSink<TestEvent>
{
    public static readonly TimeSpan DefaultWait = TimeSpan.FromSeconds(30);

    private readonly object _lock = new object();
    private readonly List<TestEvent> _events = new List<TestEvent>();
    private readonly List<string> _operations = new List<string>();
    private readonly List<int> _batchSizes = new List<int>();
    private readonly List<string> _errors = new List<string>();
    private readonly ManualResetEventSlim _gate = new ManualResetEventSlim(true);
    private long _reportedDiscards;
    private int _closeCount;
    private int _flushCount;
    private bool _inDeliver;

    /// <summary>Runs inside <see cref="Deliver"/> after the batch is recorded; may throw.</summary>
    public Action<TestEvent[]>? OnDeliver { get; set; }

    /// <summary>Runs inside <c>Flush</c>; may throw.</summary>
    public Action? OnFlush { get; set; }

    /// <summary>What <c>Flush</c> returns (a child whose flush failed without throwing).</summary>
    public bool FlushResult { get; set; } = true;

    public TestEvent[] Events
    {
        get { lock (_lock) return _events.ToArray(); }
    }

    public string[] Operations
    {
        get { lock (_lock) return _operations.ToArray(); }
    }

    public int[] BatchSizes
    {
        get { lock (_lock) return _batchSizes.ToArray(); }
    }

    public string[] Errors
    {
        get { lock (_lock) return _errors.ToArray(); }
    }

    public int Count
    {
        get { lock (_lock) return _events.Count; }
    }

    public long ReportedDiscards => Interlocked.Read(ref _reportedDiscards);

    public int CloseCount => Volatile.Read(ref _closeCount);

    public int FlushCount => Volatile.Read(ref _flushCount);

    /// <summary>Holds the worker inside the next <see cref="Deliver"/> until <see cref="Open"/>.</summary>
    public void Hold() => _gate.Reset();

    public void Open() => _gate.Set();

    public void Deliver(TestEvent[] items, int count)
    {
        var events = new TestEvent[count];
        Array.Copy(items, events, count);
        lock (_lock)
        {
            _inDeliver = true;
            Monitor.PulseAll(_lock);
        }

        _gate.Wait();
        lock (_lock)
        {
            _inDeliver = false;
            _events.AddRange(events);
            _batchSizes.Add(count);
            _operations.Add("D" + count);
            Monitor.PulseAll(_lock);
        }

        OnDeliver?.Invoke(events);
    }

    bool IBatchSink<TestEvent>.Flush(int timeoutMilliseconds)
    {
        Interlocked.Increment(ref _flushCount);
        Record("F");
        OnFlush?.Invoke();
        return FlushResult;
    }

    void IBatchSink<TestEvent>.Close()
    {
        Interlocked.Increment(ref _closeCount);
        Record("C");
    }

    public void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded)
    {
        Interlocked.Add(ref _reportedDiscards, discardedSinceLastReport);
        Record("W" + discardedSinceLastReport);
    }

    public void ReportError(string message, Exception? exception)
    {
        lock (_lock)
        {
            _errors.Add(exception == null ? message : message + " " + exception.Message);
            Monitor.PulseAll(_lock);
        }
    }

    /// <summary>Waits (bounded) until the worker is inside <see cref="Deliver"/>.</summary>
    public void WaitUntilWorkerIsHeld() => WaitUntil(() => _inDeliver, "the worker to enter Deliver");

    public void WaitUntilCount(int count) => WaitUntil(() => _events.Count >= count, $"{count} events");

    /// <summary>Waits for a condition evaluated under the sink's lock; fails the test after a bounded time.</summary>
    public void WaitUntil(Func<bool> condition, string what)
    {
        DateTime deadline = DateTime.UtcNow + DefaultWait;
        lock (_lock)
        {
            while (!condition())
            {
                TimeSpan left = deadline - DateTime.UtcNow;
                if (left <= TimeSpan.Zero)
                {
                    Assert.Fail($"Timed out waiting for {what}; operations so far: {string.Join(",", _operations.TakeLast(20))}");
                }

                Monitor.Wait(_lock, left < TimeSpan.FromMilliseconds(50) ? left : TimeSpan.FromMilliseconds(50));
            }
        }
    }

    private void Record(string operation)
    {
        lock (_lock)
        {
            _operations.Add(operation);
            Monitor.PulseAll(_lock);
        }
    }
}
