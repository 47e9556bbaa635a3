using System;
using System.IO;
using System.Runtime.CompilerServices;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Capture;
using LowLatencyLog.IO;

namespace LowLatencyLog.Layout;

/// <summary>
/// A <see cref="PatternLayout"/> or <see cref="SimpleLayout"/> compiled into parts that write straight into the file
/// appender's writer, in place of <see cref="ILayout.Format"/>. Not thread-safe: the appender renders under its lock.
/// </summary>
internal sealed partial class CompiledLayout
{
    private readonly LayoutPart[] _parts;
    private readonly LayoutBuffer _buffer = new LayoutBuffer();
    private readonly LayoutEvent _event = new LayoutEvent();

    // Every part can write straight into the file appender's writer (no padded converter other than %-5level and
    // the like): no assembly buffer, and the plain strings (literal, message, level, thread, logger) without a
    // virtual call.
    private readonly bool _direct;

    private readonly bool _messageOnly;
    private readonly LayoutPart? _beforeMessage;
    private readonly LayoutPart? _afterMessage;

    // "%message%newline" and the like: the literal after the message in UTF-8, when nothing comes before the message.
    private readonly byte[]? _lineEnd;

    public CompiledLayout(ILayout layout, LayoutPart[] parts, string description)
    {
        _parts = parts;
        _direct = Array.TrueForAll(parts, p => p.Direct);
        IgnoresException = layout.IgnoresException;
        Description = description;

        // One %message between literals ("%message%newline", "[%message]%newline"): written with no event view and no
        // part loop, which for so short a pattern is most of the cost.
        // At most one literal before it (message index 0 or 1), at most one after it, nothing else.
        int message = Array.FindIndex(parts, p => p.Kind == PartKind.Message);
        if (message >= 0 && message <= 1 && parts.Length - message <= 2 &&
            Array.TrueForAll(parts, p => p.Kind == PartKind.Literal || p == parts[message]))
        {
            _messageOnly = true;
            _beforeMessage = message == 1 ? parts[0] : null;
            _afterMessage = message + 1 < parts.Length ? parts[message + 1] : null;
            _lineEnd = _beforeMessage == null ? _afterMessage?.Utf8 : null;
        }
    }

    /// <summary>
    /// The layout's <see cref="ILayout.IgnoresException"/> when it was compiled: whether the exception text is written
    /// after the layout. The appender compiles again when the layout's value changes.
    /// </summary>
    public bool IgnoresException { get; }

    /// <summary>What was compiled, for the internal debug line.</summary>
    public string Description { get; }

    /// <summary>
    /// Renders into the file appender's writer: <c>%message%newline</c> and the like, with an ASCII message, in a few
    /// instructions inlined into the caller's loop; everything else as <see cref="Render(TextWriter, LoggingEvent)"/>.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Render(EventBufferWriter writer, LoggingEvent loggingEvent)
    {
        if (_lineEnd != null && LayoutEvent.PlainStringMessage(loggingEvent) is { } message && writer.TryWriteAscii(message, _lineEnd))
        {
            // Looked up after the message, not before as log4net does: nothing the message writes depends on it.
            if (IgnoresException)
            {
                WriteExceptionAfter(writer, loggingEvent.GetExceptionString());
            }

            return;
        }

        Render((TextWriter)writer, loggingEvent);
    }

    /// <summary>
    /// Renders as <c>AppenderSkeleton.RenderLoggingEvent(TextWriter, LoggingEvent)</c> does: the layout, then the
    /// exception text and a newline when the layout ignores exceptions and the event has one.
    /// </summary>
    public void Render(TextWriter writer, LoggingEvent loggingEvent)
    {
        if (_messageOnly && writer is EventBufferWriter events && LayoutEvent.PlainStringMessage(loggingEvent) is { } message)
        {
            string? exception = IgnoresException ? loggingEvent.GetExceptionString() : null;
            if (_lineEnd == null || !events.TryWriteAscii(message, _lineEnd))
            {
                WriteAroundMessage(events, message);
            }

            WriteExceptionAfter(events, exception);
            return;
        }

        RenderParts(writer, loggingEvent);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void RenderParts(TextWriter writer, LoggingEvent loggingEvent)
    {
        _event.Set(loggingEvent);
        Render(writer, _event);
    }

    /// <summary>
    /// Renders an event captured by an async appender: the same text as <see cref="Render(TextWriter, LoggingEvent)"/>
    /// for the event the async appender would rebuild from it.
    /// </summary>
    public void Render(TextWriter writer, in CapturedEvent captured)
    {
        if (_messageOnly && writer is EventBufferWriter events)
        {
            // A rebuilt event writes its captured message text, nothing when there is none.
            string? exception = IgnoresException ? captured.ExceptionString : null;
            if (captured.Message is { } message)
            {
                if (_lineEnd == null || !events.TryWriteAscii(message, _lineEnd))
                {
                    WriteAroundMessage(events, message);
                }
            }
            else
            {
                WriteLiterals(events);
            }

            WriteExceptionAfter(events, exception);
            return;
        }

        _event.Set(captured);
        Render(writer, _event);
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WriteAroundMessage(EventBufferWriter writer, string message)
    {
        if (_beforeMessage != null)
        {
            writer.WriteLiteral(_beforeMessage.Text, _beforeMessage.Utf8);
        }

        writer.Write(message);
        if (_afterMessage != null)
        {
            writer.WriteLiteral(_afterMessage.Text, _afterMessage.Utf8);
        }
    }

    /// <summary>The literals of a message-only pattern around a missing message (a captured event with none).</summary>
    private void WriteLiterals(EventBufferWriter writer)
    {
        if (_beforeMessage != null)
        {
            writer.WriteLiteral(_beforeMessage.Text, _beforeMessage.Utf8);
        }

        if (_afterMessage != null)
        {
            writer.WriteLiteral(_afterMessage.Text, _afterMessage.Utf8);
        }
    }

    /// <summary>Drops the last event rendered, so that nothing stays reachable from here while the appender is idle.</summary>
    public void Forget() => _event.Clear();

    private void Render(TextWriter writer, LayoutEvent loggingEvent)
    {
        string? exception = IgnoresException ? loggingEvent.GetExceptionString() : null;
        if (_direct && writer is EventBufferWriter events)
        {
#if NET8_0_OR_GREATER
            if (events.BytesWritable)
            {
                FormatUtf8(events, loggingEvent);
            }
            else
            {
                FormatDirect(events, loggingEvent, 0);
            }
#else
            FormatDirect(events, loggingEvent, 0);
#endif
        }
        else
        {
            FormatBuffered(writer, loggingEvent);
        }

        WriteExceptionAfter(writer, exception);
    }

    /// <summary>What <c>AppenderSkeleton</c> writes after a layout that ignores exceptions: the text and a newline, if any.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void WriteExceptionAfter(TextWriter writer, string? exception)
    {
        if (!string.IsNullOrEmpty(exception))
        {
            WriteLine(writer, exception!);
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void WriteLine(TextWriter writer, string text) => writer.WriteLine(text);

    private void FormatBuffered(TextWriter writer, LayoutEvent loggingEvent)
    {
        // No try/finally: after an exception the appender drops the event, and Begin resets the buffer.
        LayoutBuffer buffer = _buffer;
        buffer.Begin(writer);
        LayoutPart[] parts = _parts;
        for (int i = 0; i < parts.Length; i++)
        {
            LayoutPart part = parts[i];

            // The commonest parts are written here, without a virtual call each.
            switch (part.Kind)
            {
                case PartKind.Literal:
                    buffer.Append(part.Text);
                    break;
                case PartKind.Message:
                    if (loggingEvent.StringMessage is { } message)
                    {
                        buffer.Append(message);
                    }
                    else
                    {
                        loggingEvent.WriteMessage(buffer);
                    }

                    break;
                case PartKind.Level:
                    buffer.Append(loggingEvent.Level?.DisplayName);
                    break;
                case PartKind.Thread:
                    buffer.Append(loggingEvent.ThreadName);
                    break;
                case PartKind.Logger:
                    buffer.Append(loggingEvent.LoggerName);
                    break;
                default:
                    part.Write(buffer, loggingEvent);
                    break;
            }
        }

        buffer.End();
    }

    private void FormatDirect(EventBufferWriter writer, LayoutEvent loggingEvent, int from)
    {
        LayoutPart[] parts = _parts;
        for (int i = from; i < parts.Length; i++)
        {
            WritePartDirect(writer, parts[i], loggingEvent);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void WritePartDirect(EventBufferWriter writer, LayoutPart part, LayoutEvent loggingEvent)
    {
        switch (part.Kind)
        {
            case PartKind.Literal:
                writer.WriteLiteral(part.Text, part.Utf8);
                break;
            case PartKind.Message:
                if (loggingEvent.StringMessage is { } message)
                {
                    writer.Write(message);
                }
                else
                {
                    loggingEvent.WriteMessage(writer);
                }

                break;
            case PartKind.Level:
                writer.Write(loggingEvent.Level?.DisplayName);
                break;
            case PartKind.Thread:
                writer.Write(loggingEvent.ThreadName);
                break;
            case PartKind.Logger:
                writer.Write(loggingEvent.LoggerName);
                break;
            case PartKind.Exception:
                ExceptionPart.Render(writer, loggingEvent);
                break;
            default:
                part.WriteDirect(writer, loggingEvent);
                break;
        }
    }
}
