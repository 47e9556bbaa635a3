using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine;

namespace LowLatencyLog.Forwarding;

/// <summary>
/// The events an async appender takes before its worker runs (log4net 3.5 may append before it activates, and on a
/// reconfiguration the application's threads keep logging meanwhile): held in order up to <see cref="Limit"/>, beyond
/// it counted as dropped, and moved into the started dispatcher oldest first. Once the appender is activated or closed
/// they are detached (<see cref="Detach"/>) and no more are taken; the counts stay.
/// </summary>
/// <remarks>Guarded by the appender's lifecycle lock, given to the constructor: every member but
/// <see cref="Undelivered"/> and <see cref="MoveLeftover"/> runs under it.</remarks>
internal sealed class EarlyEvents
{
    /// <summary>Events held at most; an appender that nobody activates does not fill the memory.</summary>
    public const int Limit = 65536;

    private readonly object _guard;
    private Queue<CapturedEvent>? _held = new Queue<CapturedEvent>();
    private long _dropped;
    private long _moves;
    private long _undelivered;

    public EarlyEvents(object guard) => _guard = guard;

    /// <summary>Whether events are still taken here: the appender is neither activated nor closed.</summary>
    public bool IsOpen
    {
        get
        {
            AssertGuarded();
            return _held != null;
        }
    }

    /// <summary>Events held now.</summary>
    public int Count
    {
        get
        {
            AssertGuarded();
            return _held?.Count ?? 0;
        }
    }

    /// <summary>Events dropped beyond <see cref="Limit"/> or after waiting, not yet handed to a dispatcher's count.</summary>
    public long Dropped
    {
        get
        {
            AssertGuarded();
            return _dropped;
        }
    }

    /// <summary>How often a move made progress: producers waiting for activation wait on while it grows.</summary>
    public long Moves
    {
        get
        {
            AssertGuarded();
            return _moves;
        }
    }

    /// <summary>Events held, then left behind by a close before activation. Read without the lock.</summary>
    public long Undelivered => Interlocked.Read(ref _undelivered);

    /// <summary>Nothing held and nothing left behind (a flush before activation succeeds).</summary>
    public bool AllDelivered => Count == 0 && Undelivered == 0;

    /// <summary>Holds <paramref name="captured"/> behind the others, or counts it as dropped beyond <see cref="Limit"/>.</summary>
    public void Hold(in CapturedEvent captured)
    {
        AssertGuarded();
        Debug.Assert(_held != null, "held only while open");
        if (_held!.Count < Limit)
        {
            _held.Enqueue(captured);
        }
        else
        {
            _dropped++;
        }
    }

    /// <summary>Counts an event that was not held (its producer gave up waiting for activation).</summary>
    public void CountDropped()
    {
        AssertGuarded();
        _dropped++;
    }

    /// <summary>Moves held events into <paramref name="dispatcher"/>, oldest first, while it has room now; true if
    /// any moved (progress: <see cref="Moves"/> grows).</summary>
    public bool MoveInto(AsyncDispatcher<CapturedEvent> dispatcher)
    {
        AssertGuarded();
        Queue<CapturedEvent> held = _held!;
        bool moved = false;
        while (held.Count > 0 && dispatcher.TryEnqueueNow(held.Peek()))
        {
            held.Dequeue();
            moved = true;
        }

        if (moved)
        {
            _moves++;
        }

        return moved;
    }

    /// <summary>Gives up the held events: counted as undelivered by <paramref name="dispatcher"/>. Returns how many.</summary>
    public int GiveUp(AsyncDispatcher<CapturedEvent> dispatcher)
    {
        AssertGuarded();
        int count = _held!.Count;
        dispatcher.CountUndelivered(count);
        _held.Clear();
        return count;
    }

    /// <summary>The events dropped so far join <paramref name="dispatcher"/>'s discards, which its worker reports.</summary>
    public void HandDroppedTo(AsyncDispatcher<CapturedEvent> dispatcher)
    {
        AssertGuarded();
        if (_dropped > 0)
        {
            dispatcher.CountDiscarded(_dropped);
            _dropped = 0;
        }
    }

    /// <summary>No more events are taken here; returns those held (null when detached before).</summary>
    public Queue<CapturedEvent>? Detach()
    {
        AssertGuarded();
        Queue<CapturedEvent>? held = _held;
        _held = null;
        return held;
    }

    /// <summary>Counts detached events that will not be delivered (closed before activation).</summary>
    public void CountUndelivered(int count) => Interlocked.Add(ref _undelivered, count);

    /// <summary>
    /// Outside the lock, after a close detached the events activation had not moved yet: moves them into
    /// <paramref name="dispatcher"/> for at most <paramref name="timeout"/> ms while its worker drains; what does not
    /// fit in time is counted as undelivered. Returns how many were left.
    /// </summary>
    public static int MoveLeftover(AsyncDispatcher<CapturedEvent> dispatcher, Queue<CapturedEvent> held, int timeout)
    {
        long deadline = Stopwatch.GetTimestamp() + (long)timeout * Stopwatch.Frequency / 1000;
        var room = new SpinWait();
        while (held.Count > 0)
        {
            if (dispatcher.TryEnqueueNow(held.Peek()))
            {
                held.Dequeue();
                room.Reset();
            }
            else if (Stopwatch.GetTimestamp() >= deadline)
            {
                break;
            }
            else
            {
                room.SpinOnce();
            }
        }

        if (held.Count > 0)
        {
            dispatcher.CountUndelivered(held.Count);
        }

        return held.Count;
    }

    [Conditional("DEBUG")]
    private void AssertGuarded() => Debug.Assert(Monitor.IsEntered(_guard), "early events are guarded by the lifecycle lock");
}
