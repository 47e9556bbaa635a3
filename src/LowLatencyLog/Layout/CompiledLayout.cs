using System.IO;
using log4net.Core;
using log4net.Layout;

namespace LowLatencyLog.Layout;

/// <summary>
/// A <see cref="PatternLayout"/> or <see cref="SimpleLayout"/> compiled into parts that write straight into the file
/// appender's writer, in place of <see cref="ILayout.Format"/>. Not thread-safe: the appender renders under its lock.
/// </summary>
internal sealed class CompiledLayout
{
    private readonly ILayout _layout;
    private readonly LayoutPart[] _parts;

    public CompiledLayout(ILayout layout, LayoutPart[] parts, string description)
    {
        _layout = layout;
        _parts = parts;
        Description = description;
    }

    /// <summary>What was compiled, for the internal debug line.</summary>
    public string Description { get; }

    /// <summary>
    /// Renders as <c>AppenderSkeleton.RenderLoggingEvent(TextWriter, LoggingEvent)</c> does: the layout, then the
    /// exception text and a newline when the layout ignores exceptions and the event has one.
    /// </summary>
    public void Render(TextWriter writer, LoggingEvent loggingEvent)
    {
        if (_layout.IgnoresException)
        {
            string? exception = loggingEvent.GetExceptionString();
            if (!string.IsNullOrEmpty(exception))
            {
                Format(writer, loggingEvent);
                writer.WriteLine(exception);
                return;
            }
        }

        Format(writer, loggingEvent);
    }

    private void Format(TextWriter writer, LoggingEvent loggingEvent)
    {
        LayoutPart[] parts = _parts;
        for (int i = 0; i < parts.Length; i++)
        {
            parts[i].Write(writer, loggingEvent);
        }
    }
}
