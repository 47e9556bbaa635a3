using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Threading;
using log4net.Core;
using LowLatencyLog.Runtime;
using LowLatencyLog.Text;

namespace LowLatencyLog.Files;

/// <summary>
/// Where a file appender hands each append, once: for each event the roll check, the rendering into the buffer (through
/// the <see cref="IEventRenderer{TEvent}"/> the layout gives) and the end of the event; then the write the append calls
/// for (at a batch's end, with immediateFlush, a retry that is due, else the flush timer).
/// </summary>
/// <remarks>
/// Called under the appender's lock, as the <see cref="FileWriter"/> it writes through. The loops are generic over the
/// renderer, a struct: the layout's render is a direct call, inlined as it was in the appender. An event whose
/// rendering throws is dropped whole and reported; the batch goes on.
/// </remarks>
internal sealed class FileSink
{
    private readonly FileWriter _file;

    private readonly IFileWriterOwner _owner;

    /// <param name="file">The file the events go to.</param>
    /// <param name="owner">Where a failed rendering is reported.</param>
    public FileSink(FileWriter file, IFileWriterOwner owner)
    {
        _file = file;
        _owner = owner;
    }

    /// <summary>What is reported when an event is to be written and the appender has no file.</summary>
    public static string NoFileOpen(string appenderName) => $"No file is open for the appender named [{appenderName}].";

    /// <summary>
    /// An async appender's batch: the events <paramref name="renderer"/> accepts, rendered into the buffer. Not written
    /// at its end: the worker flushes when its queue runs empty, and while it is behind, the writes are the buffer's
    /// size, which the kernel takes faster than a write per batch (docs/file-appenders.md).
    /// </summary>
    /// <returns>False, with nothing done, when an event is accepted but no file is set (reported as the appender's
    /// <c>PreAppendCheck</c> reports it, <see cref="NoFileOpen"/>); true otherwise.</returns>
    [MethodImpl(Jit.Optimized)]
    public bool Append<TEvent, TRenderer>(TEvent[] items, int count, TRenderer renderer)
        where TRenderer : struct, IEventRenderer<TEvent>
    {
        bool started = false;
        for (int i = 0; i < count; i++)
        {
            ref readonly TEvent loggingEvent = ref items[i];
            if (!renderer.Accepts(in loggingEvent))
            {
                continue;
            }

            if (!started)
            {
                if (_file.Buffer == null)
                {
                    return false;
                }

                started = true;
                BeforeBatch();
            }

            AppendOne(ref renderer, in loggingEvent);
        }

        if (started)
        {
            EndAppend(batch: false);
        }

        return true;
    }

    /// <summary>One log4net event: rendered into the buffer, written on the timer (or at once with immediateFlush).</summary>
    public void Append<TEvent, TRenderer>(TEvent loggingEvent, TRenderer renderer)
        where TRenderer : struct, IEventRenderer<TEvent>
    {
        BeforeBatch();
        AppendOne(ref renderer, in loggingEvent);
        EndAppend(batch: false);
    }

    /// <summary>A batch of log4net events: rendered into the buffer and written with one write and at most one flush.</summary>
    public void Append<TEvent, TRenderer>(IEnumerable<TEvent> events, TRenderer renderer)
        where TRenderer : struct, IEventRenderer<TEvent>
    {
        BeforeBatch();
        if (events is List<TEvent> list)
        {
            // What DoAppend(LoggingEvent[]) passes: indexed, without an enumerator behind an interface.
            for (int i = 0; i < list.Count; i++)
            {
                AppendOne(ref renderer, list[i]);
            }
        }
        else
        {
            foreach (TEvent loggingEvent in events)
            {
                AppendOne(ref renderer, in loggingEvent);
            }
        }

        EndAppend(batch: true);
    }

    // Fully optimized from its first call, as the loop (its try/catch keeps it out of the loop): the render is inlined here.
    [MethodImpl(Jit.Optimized)]
    private void AppendOne<TEvent, TRenderer>(ref TRenderer renderer, in TEvent loggingEvent)
        where TRenderer : struct, IEventRenderer<TEvent>
    {
        BeforeEvent();
        EventBufferWriter writer = _file.Buffer!;
        try
        {
            renderer.Render(writer, in loggingEvent);
            writer.EndEvent();
        }
        catch (Exception ex)
        {
            DropEvent(writer, ex);
        }
    }

    private void DropEvent(EventBufferWriter writer, Exception ex)
    {
        writer.AbandonEvent();
        _owner.ReportError("Could not render an event through the layout; the event is dropped.", ex, ErrorCode.GenericFailure);
    }

    /// <summary>Before the first event of a batch (a single event is a batch of one): a date roll, the clock read once
    /// per batch rather than per event.</summary>
    private void BeforeBatch()
    {
        Debug.Assert(Monitor.IsEntered(_file.Gate), "called under the appender's lock");
        RollingPolicy? rolling = _file.Rolling;
        if (rolling != null && rolling.DateRollDue())
        {
            _file.Roll(rolling, byDate: true);
        }
    }

    /// <summary>Before each event is rendered: a size roll.</summary>
    private void BeforeEvent()
    {
        RollingPolicy? rolling = _file.Rolling;
        if (rolling == null)
        {
            return;
        }

        // Never while no file is open (the next one failed to open and is retried: rolling again would shift the
        // backups once per event), and after a roll that could not move the file, not again for a while.
        long limit = rolling.SizeLimit;
        if (limit != long.MaxValue && _file.IsOpen && _file.CurrentFileLength(limit) >= limit && rolling.SizeRollAllowed)
        {
            _file.Roll(rolling, byDate: false);
            rolling.AfterSizeRoll();
        }
    }

    /// <summary>After the events of an append are rendered: written out at a batch's end or with immediateFlush, else
    /// on the timer (or a retry when one is due).</summary>
    private void EndAppend(bool batch)
    {
        FileWriter file = _file;
        if (batch || file.ImmediateFlush)
        {
            file.WriteOut(flushStream: file.ImmediateFlush, force: false);
        }
        else if (file.Failing)
        {
            if (file.RetryDue)
            {
                file.WriteOut(flushStream: false, force: false);
            }
        }
        else
        {
            file.ArmFlushTimer();
        }

        file.ReportProblems();
    }
}
