using System;
using System.IO;
using log4net.Core;
using log4net.Repository;
using LowLatencyLog.Capture;

namespace LowLatencyLog.Layout;

/// <summary>
/// What a compiled layout reads from the event it renders: a log4net event as it is (read through its getters, as
/// log4net's converters read it), or an event captured by an async appender, read as the event the appender would
/// rebuild from it would answer, so the text is the same without building that event.
/// </summary>
/// <remarks>
/// One instance per compiled layout, set before each event and used under the appender's lock.
/// </remarks>
internal sealed class LayoutEvent
{
    private LoggingEvent? _source; // null for a captured event
    private CapturedEvent _captured;

    public Level? Level => _source != null ? _source.Level : _captured.Level;

    public string? LoggerName => _source != null ? _source.LoggerName : _captured.LoggerName;

    public DateTime TimeStampUtc => _source != null ? _source.TimeStampUtc : _captured.TimeStampUtc;

    /// <summary>A captured event's local time as <see cref="LoggingEvent.TimeStamp"/> computes it from the UTC stamp.</summary>
    public DateTime TimeStamp => _source != null ? _source.TimeStamp : _captured.TimeStampUtc.ToLocalTime();

    public ILoggerRepository? Repository => _source != null ? _source.Repository : _captured.Repository;

    public string? ThreadName => _source != null ? _source.ThreadName : _captured.ThreadName;

    // A rebuilt event's domain is set from the same process-wide name.
    public string? Domain => _source != null ? _source.Domain : _captured.Domain;

    public void Set(LoggingEvent loggingEvent)
    {
        // A captured event left from an earlier batch is never read while a source is set; Clear drops it.
        _source = loggingEvent;
    }

    public void Set(in CapturedEvent captured)
    {
        _source = null;
        _captured = captured;
    }

    /// <summary>Forgets the event, so a quiet appender keeps nothing alive.</summary>
    public void Clear()
    {
        _source = null;
        _captured = default;
    }

    public string? GetExceptionString() => _source != null ? _source.GetExceptionString() : _captured.ExceptionString;

    /// <summary>A rebuilt event holds a properties dictionary, empty when none was captured.</summary>
    public object? LookupProperty(string key) => _source != null ? _source.LookupProperty(key) : _captured.Context?.Properties?[key];

    /// <summary>The message as <see cref="LoggingEvent.WriteRenderedMessage"/> writes it.</summary>
    public void WriteMessage(TextWriter writer)
    {
        if (_source == null)
        {
            // A rebuilt event writes its captured text, nothing when there is none.
            if (_captured.OwnedText is { } text)
            {
                writer.Write(text.Chars, text.Offset, text.Length);
            }
            else
            {
                writer.Write(_captured.Message);
            }
        }
        else if (PlainStringMessage(_source) is { } message)
        {
            // What WriteRenderedMessage writes for a string (a rendered copy of it, if any, is the same string).
            writer.Write(message);
        }
        else
        {
            _source.WriteRenderedMessage(writer);
        }
    }

    /// <summary>The message when it is a plain string (written without a call through the writer), else null.</summary>
    public string? StringMessage => _source != null ? PlainStringMessage(_source) : _captured.Message;

    /// <summary>A captured event's message when its slot holds it as text (written from there), else null.</summary>
    public MessageText? TextMessage => _source != null ? null : _captured.OwnedText;

    /// <summary>
    /// A log4net event's string message, to be written as it is; null when the message is not a string or the event is
    /// a subclass, which may override <see cref="LoggingEvent.WriteRenderedMessage"/> (to mask it, say), as log4net's
    /// <c>%message</c> calls it.
    /// </summary>
    public static string? PlainStringMessage(LoggingEvent loggingEvent) =>
        loggingEvent.GetType() == typeof(LoggingEvent) ? loggingEvent.MessageObject as string : null;
}
