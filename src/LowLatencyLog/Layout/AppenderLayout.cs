using System;
using System.Runtime.CompilerServices;
using System.Threading;
using log4net.Appender;
using log4net.Layout;
using log4net.Util;
using LowLatencyLog.Capture;
using LowLatencyLog.Files;

namespace LowLatencyLog.Layout;

/// <summary>
/// A file appender's layout as its events are rendered: compiled for the fast path when it can be, and compiled again
/// before the next event when the layout was replaced or activated again (a new converter chain). Used under the
/// appender's lock: per batch by its <see cref="FileBatchTarget{TEvent, TRenderer, TRenderers}"/> (through
/// <see cref="Batches"/>), per append by the appender.
/// </summary>
internal sealed class AppenderLayout
{
    private readonly AppenderSkeleton _appender;
    private readonly Type _source;
    private bool _fastLayout = true;

    // The compiled layout, or null to render through the layout; and what it was compiled from.
    private CompiledLayout? _compiled;
    private ILayout? _compiledFrom;
    private PatternLayout? _compiledPatternLayout;
    private object? _compiledChain;

    /// <param name="appender">The appender whose <c>Layout</c> and <c>Threshold</c> are read.</param>
    /// <param name="source">The type log4net's internal log names for the debug line saying which path renders.</param>
    public AppenderLayout(AppenderSkeleton appender, Type source)
    {
        _appender = appender;
        _source = source;
    }

    /// <summary>The compiled layout; null while the layout renders itself. Any thread.</summary>
    public CompiledLayout? Compiled => Volatile.Read(ref _compiled);

    /// <summary>At activation: the <c>fastLayout</c> setting, and the layout compiled with it.</summary>
    public void Activate(bool fastLayout)
    {
        _fastLayout = fastLayout;
        Compile();
    }

    /// <summary>log4net's events: through the compiled layout when there is one, else through the layout itself.</summary>
    public LoggingEventRenderer ForLoggingEvents()
    {
        if (Changed())
        {
            Compile();
        }

        return new LoggingEventRenderer(_compiled, _appender.Layout);
    }

    /// <summary>The renderers of the async appenders' batches, for the appender's batch target.</summary>
    public Batches ForBatches() => new Batches(this);

    /// <summary>Captured events through the compiled layout, asked once per batch.</summary>
    internal readonly struct Batches : IBatchRenderers<CapturedEvent, CapturedEventRenderer>
    {
        private readonly AppenderLayout _layout;

        public Batches(AppenderLayout layout) => _layout = layout;

        /// <inheritdoc/>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public bool TryBegin(out CapturedEventRenderer renderer)
        {
            AppenderLayout layout = _layout;
            if (layout.Changed())
            {
                layout.Compile();
            }

            CompiledLayout? compiled = layout._compiled;
            renderer = compiled != null ? new CapturedEventRenderer(compiled, layout._appender.Threshold) : default;
            return compiled != null;
        }

        /// <inheritdoc/>
        public void End(in CapturedEventRenderer renderer) => renderer.Forget();
    }

    /// <summary>Whether the layout was replaced or activated again (a new converter chain) since it was compiled.</summary>
    private bool Changed() =>
        !ReferenceEquals(_appender.Layout, _compiledFrom) ||
        (_compiledPatternLayout != null && !ReferenceEquals(LayoutCompiler.ConverterChain(_compiledPatternLayout), _compiledChain)) ||
        (_compiled != null && _compiled.IgnoresException != _compiledFrom!.IgnoresException);

    /// <summary>Compiles the current layout for the fast path, or records why the layout renders itself.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void Compile()
    {
        ILayout? layout = _appender.Layout;
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

        LogLog.Debug(_source, _compiled != null
            ? $"{_appender.GetType().Name} [{_appender.Name}]: fast layout path for {_compiled.Description}."
            : $"{_appender.GetType().Name} [{_appender.Name}]: rendering through the layout, not the fast layout path: {reason}.");
    }
}
