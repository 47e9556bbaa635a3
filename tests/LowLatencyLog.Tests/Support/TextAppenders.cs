using System.Globalization;
using System.IO;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;

namespace LowLatencyLog.Tests.Support;

/// <summary>log4net's own text appender as the child of an async appender: a type whose reads fix=Auto knows.</summary>
internal sealed class Log4netChild
{
    private readonly StringWriter _writer = new StringWriter(CultureInfo.InvariantCulture);

    public Log4netChild(string pattern)
    {
        var layout = new PatternLayout(pattern);
        layout.ActivateOptions();
        Appender = new TextWriterAppender { Name = "child", Writer = _writer, Layout = layout, ImmediateFlush = true };
        Appender.ActivateOptions();
    }

    public TextWriterAppender Appender { get; }

    public string Text => _writer.ToString(); // read after a flush: the worker has written it
}

/// <summary>log4net's own text appender into a string, beside an async appender (written on the logging thread).</summary>
internal sealed class StringAppender : TextWriterAppender
{
    private readonly StringWriter _writer = new StringWriter(CultureInfo.InvariantCulture);

    public StringAppender(string pattern)
    {
        Name = "string";
        Writer = _writer;
        var layout = new PatternLayout(pattern);
        layout.ActivateOptions();
        Layout = layout;
        ImmediateFlush = true;
    }

    public string Text
    {
        get
        {
            lock (_writer)
            {
                return _writer.ToString();
            }
        }
    }

    protected override void Append(LoggingEvent loggingEvent)
    {
        lock (_writer)
        {
            base.Append(loggingEvent);
        }
    }
}
