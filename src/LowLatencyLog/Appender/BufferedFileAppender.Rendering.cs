using System;
using System.Runtime.CompilerServices;
using System.Threading;
using log4net.Core;
using log4net.Layout;
using log4net.Util;
using LowLatencyLog.Capture;
using LowLatencyLog.Forwarding;
using LowLatencyLog.Layout;
using LowLatencyLog.Runtime;
using LowLatencyLog.Text;

namespace LowLatencyLog.Appender;

// BufferedFileAppender, continued: rendering events into the buffer: log4net events, captured slots, the compiled layout.
public partial class BufferedFileAppender
{
    private void AppendOne(LoggingEvent loggingEvent)
    {
        EventBufferWriter writer = _writer!;
        BeforeEvent();
        try
        {
            if (LayoutChanged())
            {
                CompileLayout();
            }

            if (_compiled != null)
            {
                _compiled.Render(writer, loggingEvent);
            }
            else
            {
                RenderLoggingEvent(writer, loggingEvent);
            }

            writer.EndEvent();
        }
        catch (Exception ex)
        {
            DropEvent(writer, ex);
        }
    }

    [MethodImpl(Jit.Optimized)]
    private void AppendOne(CompiledLayout compiled, in CapturedEvent captured)
    {
        EventBufferWriter writer = _writer!;
        BeforeEvent();
        try
        {
            compiled.Render(writer, captured);
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
        ReportError("Could not render an event through the layout; the event is dropped.", ex, ErrorCode.GenericFailure);
    }

    /// <inheritdoc/>
    bool ICapturedEventAppender.MayReadEventObjects => !TakesCapturedEvents || Volatile.Read(ref _compiled) == null;

    private bool TakesCapturedEvents =>
        FilterHead == null && (GetType() == typeof(BufferedFileAppender) || GetType() == typeof(RollingBufferedFileAppender));

    /// <summary>Whether the layout was replaced or activated again (a new converter chain) since it was compiled.</summary>
    private bool LayoutChanged() =>
        !ReferenceEquals(Layout, _compiledFrom) ||
        (_compiledPatternLayout != null && !ReferenceEquals(LayoutCompiler.ConverterChain(_compiledPatternLayout), _compiledChain)) ||
        (_compiled != null && _compiled.IgnoresException != _compiledFrom!.IgnoresException);

    /// <inheritdoc/>
    /// <remarks>
    /// Taken when the layout is compiled, no filter is set and the appender is one of this library's own types (a
    /// subclass may override what <c>AppenderSkeleton</c> calls). The steps are <c>DoAppend(LoggingEvent[])</c>'s:
    /// the lock, the closed check, the threshold, <see cref="PreAppendCheck"/> once, the batch, its errors.
    /// </remarks>
    [MethodImpl(Jit.Optimized)]
    bool ICapturedEventAppender.TryAppend(CapturedEvent[] items, int count)
    {
        if (!TakesCapturedEvents)
        {
            return false;
        }

        lock (LockObj)
        {
            if (LayoutChanged())
            {
                CompileLayout();
            }

            CompiledLayout? compiled = _compiled;
            if (compiled == null)
            {
                return false;
            }

            if (_skeletonClosed)
            {
                ReportError("Attempted to append to closed appender named [" + Name + "].");
                return true;
            }

            if (_appendingCaptured)
            {
                return true;
            }

            try
            {
                _appendingCaptured = true;
                CapturedBatches++;
                bool checkedOnce = false;
                for (int i = 0; i < count; i++)
                {
                    ref readonly CapturedEvent captured = ref items[i];
                    if (!IsAsSevereAsThreshold(captured.Level))
                    {
                        continue;
                    }

                    if (!checkedOnce)
                    {
                        if (!PreAppendCheck())
                        {
                            return true;
                        }

                        checkedOnce = true;
                        BeforeBatch();
                    }

                    AppendOne(compiled, captured);
                }

                if (checkedOnce)
                {
                    // Not a write: the worker flushes when its queue runs empty, and while it is behind, the writes are
                    // the buffer's size, which the kernel takes faster than a write per batch (docs/file-appenders.md).
                    EndAppend(batch: false);
                }
            }
            catch (Exception ex)
            {
                ReportError("Failed in Bulk DoAppend", ex);
            }
            finally
            {
                _appendingCaptured = false;
                compiled.Forget();
            }
        }

        return true;
    }

    /// <summary>Compiles the current layout for the fast path, or records why the layout renders itself.</summary>
    private void CompileLayout()
    {
        ILayout? layout = Layout;
        _compiledFrom = layout;
        _compiledPatternLayout = layout as PatternLayout;
        _compiledChain = _compiledPatternLayout != null ? LayoutCompiler.ConverterChain(_compiledPatternLayout) : null;
        string reason;
        if (!_fastLayout)
        {
            _compiled = null;
            reason = "fastLayout is false";
        }
        else
        {
            _compiled = LayoutCompiler.TryCompile(layout, out reason);
        }

        LogLog.Debug(typeof(BufferedFileAppender), _compiled != null
            ? $"{GetType().Name} [{Name}]: fast layout path for {_compiled.Description}."
            : $"{GetType().Name} [{Name}]: rendering through the layout, not the fast layout path: {reason}.");
    }
}
