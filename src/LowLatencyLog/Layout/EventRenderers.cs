using System;
using System.Runtime.CompilerServices;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Capture;
using LowLatencyLog.Text;

namespace LowLatencyLog.Layout;

/// <summary>
/// An async appender's captured events through the compiled layout, those below the appender's threshold skipped as
/// <c>AppenderSkeleton</c> skips them: what a file sink renders a worker's batch with.
/// </summary>
internal readonly struct CapturedEventRenderer : IEventRenderer<CapturedEvent>
{
    private readonly CompiledLayout _layout;
    private readonly Level? _threshold;

    /// <param name="layout">The compiled layout.</param>
    /// <param name="threshold">The appender's threshold, read once per batch.</param>
    public CapturedEventRenderer(CompiledLayout layout, Level? threshold)
    {
        _layout = layout;
        _threshold = threshold;
    }

    /// <summary>As <c>AppenderSkeleton.IsAsSevereAsThreshold</c>: an event without a level passes.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool Accepts(in CapturedEvent loggingEvent) => loggingEvent.Level is null || loggingEvent.Level >= _threshold;

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Render(EventBufferWriter writer, in CapturedEvent loggingEvent) => _layout.Render(writer, in loggingEvent);

    /// <summary>After the batch: the compiled layout lets go of its last event.</summary>
    public void Forget() => _layout.Forget();
}

/// <summary>
/// log4net's events (which <c>DoAppend</c> has filtered already) through the compiled layout, or through the layout
/// itself as <c>AppenderSkeleton.RenderLoggingEvent(TextWriter, LoggingEvent)</c> renders them.
/// </summary>
internal readonly struct LoggingEventRenderer : IEventRenderer<LoggingEvent>
{
    private readonly CompiledLayout? _compiled;
    private readonly ILayout? _layout;

    /// <param name="compiled">The compiled layout; null to render through <paramref name="layout"/>.</param>
    /// <param name="layout">The appender's layout.</param>
    public LoggingEventRenderer(CompiledLayout? compiled, ILayout? layout)
    {
        _compiled = compiled;
        _layout = layout;
    }

    public bool Accepts(in LoggingEvent loggingEvent) => true;

    public void Render(EventBufferWriter writer, in LoggingEvent loggingEvent)
    {
        if (_compiled != null)
        {
            _compiled.Render(writer, loggingEvent);
            return;
        }

        ILayout layout = _layout ?? throw new InvalidOperationException("A layout must be set");
        string? exception = layout.IgnoresException ? loggingEvent.GetExceptionString() : null;
        layout.Format(writer, loggingEvent);
        if (!string.IsNullOrEmpty(exception))
        {
            writer.WriteLine(exception); // the exception after a layout that ignores it, as AppenderSkeleton writes it
        }
    }
}
