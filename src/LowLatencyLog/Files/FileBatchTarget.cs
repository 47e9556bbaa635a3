using System;
using System.Runtime.CompilerServices;
using log4net.Appender;
using LowLatencyLog.Runtime;
using LowLatencyLog.Text;

namespace LowLatencyLog.Files;

/// <summary>
/// A file appender's side of the worker's batches: the steps of <c>AppenderSkeleton.DoAppend(LoggingEvent[])</c> taken
/// once per batch (no filter set, the appender's lock, the closed check, a guard against events logged back into the
/// appender while it renders), then the batch handed to the <see cref="FileSink"/>. Built by the appender, which keeps
/// log4net's lifecycle and closes it here.
/// </summary>
/// <remarks>The flags are guarded by the appender's lock, which its own <c>DoAppend</c> and <c>Close</c> take too.</remarks>
/// <typeparam name="TEvent">The events of a batch.</typeparam>
/// <typeparam name="TRenderer">What renders them (the layout's struct).</typeparam>
/// <typeparam name="TRenderers">Where the renderer comes from per batch: a struct too, so that its check is inlined here.</typeparam>
internal sealed class FileBatchTarget<TEvent, TRenderer, TRenderers> : IBatchTarget<TEvent>
    where TRenderer : struct, IEventRenderer<TEvent>
    where TRenderers : struct, IBatchRenderers<TEvent, TRenderer>
{
    private readonly AppenderSkeleton _appender;
    private readonly object _gate;
    private readonly FileSink _sink;
    private readonly TRenderers _renderers;
    private readonly IFileWriterOwner _owner;
    private bool _closed;
    private bool _appending;

    /// <param name="appender">The appender: its filters and name, as log4net's <c>DoAppend</c> reads them.</param>
    /// <param name="gate">The appender's lock.</param>
    /// <param name="sink">Where the events are rendered and written.</param>
    /// <param name="renderers">The layout's renderer, asked per batch.</param>
    /// <param name="owner">Where failures are reported.</param>
    public FileBatchTarget(AppenderSkeleton appender, object gate, FileSink sink, TRenderers renderers, IFileWriterOwner owner)
    {
        _appender = appender;
        _gate = gate;
        _sink = sink;
        _renderers = renderers;
        _owner = owner;
    }

    /// <summary>Set by the appender's close, never cleared (as <c>AppenderSkeleton</c>'s own flag); read under the lock.</summary>
    public bool Closed => _closed;

    /// <summary>Whether a batch is being rendered: an event logged back into the appender meanwhile is dropped, as
    /// log4net drops it. Read under the lock.</summary>
    public bool Appending => _appending;

    /// <summary>Under the appender's lock, from its close.</summary>
    public void Close() => _closed = true;

    /// <inheritdoc/>
    [MethodImpl(Jit.Optimized)]
    public bool TryAppend(TEvent[] items, int count)
    {
        if (_appender.FilterHead != null)
        {
            return false;
        }

        lock (_gate)
        {
            if (!_renderers.TryBegin(out TRenderer renderer))
            {
                return false;
            }

            if (_closed)
            {
                ReportClosed();
                return true;
            }

            if (_appending)
            {
                return true;
            }

            try
            {
                _appending = true;
                if (!_sink.Append(items, count, renderer))
                {
                    ReportNoFile();
                }
            }
            catch (Exception ex)
            {
                ReportFailed(ex);
            }
            finally
            {
                _appending = false;
                _renderers.End(in renderer);
            }
        }

        return true;
    }

    // The reports, out of line as the messages are built: the batch's code stays short. log4net's texts.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReportClosed() => _owner.ReportError("Attempted to append to closed appender named [" + _appender.Name + "].");

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReportNoFile() => _owner.ReportError(FileSink.NoFileOpen(_appender.Name)); // as the appender's PreAppendCheck

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void ReportFailed(Exception ex) => _owner.ReportError("Failed in Bulk DoAppend", ex);
}
