using System;
using log4net.Appender;
using log4net.Core;

namespace LowLatencyLog.Forwarding;

/// <summary>
/// Gets a log4net <see cref="FileAppender"/> (or <see cref="RollingFileAppender"/>) with <c>immediateFlush=false</c> to
/// write its buffer at the end of a batch.
/// </summary>
/// <remarks>
/// <para>In that mode <c>FileAppender.Flush(int)</c> fails (its locking stream is only locked inside an append), reports
/// <c>FlushFailure</c>, and the <c>StreamWriter</c> loses the characters it had buffered. The appender does flush
/// correctly inside its own append path when <see cref="TextWriterAppender.ImmediateFlush"/> is set.</para>
/// <para>So the worker holds back, for each such child, the tail of the stream it delivered: the last event the child
/// accepts and anything after it. The tail goes out ahead of the next batch, or, at the end of a batch (the queue ran
/// empty, or a <c>Flush</c> arrived), with <c>ImmediateFlush</c> switched on for that one append. A busy appender
/// therefore writes through its buffer as usual, and the file is complete whenever the queue is empty. Only the worker
/// appends to the child, so switching the property on and off is not seen by anything else (unless the same
/// <c>FileAppender</c> is also attached to a logger directly, where it costs at most one extra flush).</para>
/// </remarks>
internal sealed class FileAppenderFlusher
{
    private LoggingEvent[]? _held;

    public FileAppenderFlusher(FileAppender appender) => Appender = appender;

    public FileAppender Appender { get; }

    public bool HasHeld => _held != null;

    /// <summary>Appends everything before the last event the child accepts; holds that event and what follows.</summary>
    public void Append(LoggingEvent[] batch)
    {
        LoggingEvent[] events = batch;
        if (_held != null)
        {
            events = new LoggingEvent[_held.Length + batch.Length];
            Array.Copy(_held, events, _held.Length);
            Array.Copy(batch, 0, events, _held.Length, batch.Length);
            _held = null;
        }

        int last = events.Length - 1;
        while (last >= 0 && !Accepts(events[last]))
        {
            last--;
        }

        if (last < 0)
        {
            Appender.DoAppend(events); // nothing will be written, so nothing needs a flush
            return;
        }

        if (last > 0)
        {
            var head = new LoggingEvent[last];
            Array.Copy(events, head, last);
            Appender.DoAppend(head);
        }

        var tail = new LoggingEvent[events.Length - last];
        Array.Copy(events, last, tail, 0, tail.Length);
        _held = tail;
    }

    /// <summary>Appends the held tail with <c>ImmediateFlush</c> on, so the child flushes under its own lock.</summary>
    public void Flush()
    {
        LoggingEvent[]? held = _held;
        if (held == null)
        {
            return;
        }

        _held = null;
        if (Appender.ImmediateFlush)
        {
            Appender.DoAppend(held);
            return;
        }

        Appender.ImmediateFlush = true;
        try
        {
            Appender.DoAppend(held);
        }
        finally
        {
            Appender.ImmediateFlush = false;
        }
    }

    /// <summary>The child's own threshold and filters, as <c>AppenderSkeleton.DoAppend</c> applies them.</summary>
    private bool Accepts(LoggingEvent loggingEvent)
    {
        Level? threshold = Appender.Threshold;
        if (threshold != null && (loggingEvent.Level == null || loggingEvent.Level < threshold))
        {
            return false;
        }

        for (var filter = Appender.FilterHead; filter != null; filter = filter.Next)
        {
            switch (filter.Decide(loggingEvent))
            {
                case log4net.Filter.FilterDecision.Deny:
                    return false;
                case log4net.Filter.FilterDecision.Accept:
                    return true;
            }
        }

        return true;
    }
}
