using System;
using System.IO;
using System.Runtime.CompilerServices;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Capture;
using LowLatencyLog.Runtime;
using LowLatencyLog.Text;

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

    // A message line: [literal] %message [literal] [%exception [literal]], written without the part loop.
    private readonly bool _messageOnly;
    private readonly LayoutPart? _beforeMessage;
    private readonly LayoutPart? _afterMessage;
    private readonly bool _exceptionInLine;
    private readonly LayoutPart? _afterException;

    // "%message%newline" and the like, nothing before the message: what follows it when the event has no exception
    // text (the literals after the message and after %exception), packed for one store; _lineEndLength -1 if none.
    private readonly ulong _lineEnd;
    private readonly int _lineEndLength = -1;

    // Whether the exception text is written anywhere: by %exception, or after a layout that ignores exceptions.
    private readonly bool _writesException;

    public CompiledLayout(ILayout layout, LayoutPart[] parts, string description)
    {
        _parts = parts;
        _direct = Array.TrueForAll(parts, p => p.Direct);
        IgnoresException = layout.IgnoresException;
        Description = description;

        // One %message between literals, perhaps with an %exception after it ("%message%newline",
        // "[%message]%newline", "%message %exception%newline"): written with no event view and no part loop, which for
        // so short a pattern is most of the cost.
        int next = 0;
        LayoutPart? Take(PartKind kind) => next < parts.Length && parts[next].Kind == kind ? parts[next++] : null;
        _beforeMessage = Take(PartKind.Literal);
        if (Take(PartKind.Message) != null)
        {
            _afterMessage = Take(PartKind.Literal);
            _exceptionInLine = Take(PartKind.Exception) != null;
            _afterException = _exceptionInLine ? Take(PartKind.Literal) : null;
            _messageOnly = next == parts.Length;
        }

        if (!_messageOnly)
        {
            _beforeMessage = _afterMessage = _afterException = null;
            _exceptionInLine = false;
        }

        _writesException = _exceptionInLine || IgnoresException;
        if (_messageOnly && _beforeMessage == null &&
            EventBufferWriter.TryPackLiteral(_afterMessage?.Text + _afterException?.Text, out ulong lineEnd, out int length))
        {
            _lineEnd = lineEnd;
            _lineEndLength = length;
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
        // The exception is looked up first, as log4net does; an event with one takes the general path.
        if (_lineEndLength < 0 ||
            LayoutEvent.PlainStringMessage(loggingEvent) is not { } message ||
            !TryWriteLine(writer, message, _writesException ? loggingEvent.GetExceptionString() : null))
        {
            RenderEvent(writer, loggingEvent);
        }
    }

    /// <summary>
    /// Renders as <c>AppenderSkeleton.RenderLoggingEvent(TextWriter, LoggingEvent)</c> does: the layout, then the
    /// exception text and a newline when the layout ignores exceptions and the event has one.
    /// </summary>
    public void Render(TextWriter writer, LoggingEvent loggingEvent)
    {
        if (writer is EventBufferWriter events)
        {
            RenderEvent(events, loggingEvent);
            return;
        }

        _event.Set(loggingEvent);
        Render(writer, _event);
    }

    // Out of line: the short path above is inlined into the appender's loop, and this would take its registers.
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void RenderEvent(EventBufferWriter writer, LoggingEvent loggingEvent)
    {
        if (_messageOnly && LayoutEvent.PlainStringMessage(loggingEvent) is { } message)
        {
            WriteMessageLine(writer, message, _writesException ? loggingEvent.GetExceptionString() : null);
            return;
        }

        _event.Set(loggingEvent);
        RenderTo(writer, _event);
    }

    /// <summary>
    /// Renders an event captured by an async appender: the same text as <see cref="Render(TextWriter, LoggingEvent)"/>
    /// for the event the async appender would rebuild from it.
    /// </summary>
    [MethodImpl(Jit.Optimized)]
    public void Render(TextWriter writer, in CapturedEvent captured)
    {
        if (writer is not EventBufferWriter events)
        {
            _event.Set(captured);
            Render(writer, _event);
        }
        else if (_messageOnly)
        {
            // A rebuilt event writes its captured message text, nothing when there is none.
            if (captured.OwnedText is { } text)
            {
                WriteMessageLine(events, text, captured.ExceptionString);
            }
            else
            {
                WriteMessageLine(events, captured.Message, captured.ExceptionString);
            }
        }
        else
        {
            _event.Set(captured);
            RenderTo(events, _event);
        }
    }

    /// <summary>A message line, as <see cref="WriteMessageLine(EventBufferWriter, string, string)"/> writes it, for a
    /// message held as text in its slot.</summary>
    private void WriteMessageLine(EventBufferWriter writer, MessageText message, string? exception)
    {
#if NET8_0_OR_GREATER
        if (_lineEndLength >= 0 && string.IsNullOrEmpty(exception) && writer.TryWriteAscii(message.Span, _lineEnd, _lineEndLength))
        {
            return;
        }
#endif

        if (_beforeMessage != null)
        {
            writer.WriteLiteral(_beforeMessage.Text, _beforeMessage.Utf8);
        }

        writer.Write(message.Chars, message.Offset, message.Length);
        if (_afterMessage != null)
        {
            writer.WriteLiteral(_afterMessage.Text, _afterMessage.Utf8);
        }

        WriteLineEnd(writer, exception);
    }

    /// <summary>
    /// A message line: the literals, the message (null writes nothing), the <c>%exception</c> part's text and whatever
    /// follows it, then the exception after the layout when it ignores exceptions.
    /// </summary>
    private void WriteMessageLine(EventBufferWriter writer, string? message, string? exception)
    {
        if (message != null && TryWriteLine(writer, message, exception))
        {
            return;
        }

        if (_beforeMessage != null)
        {
            writer.WriteLiteral(_beforeMessage.Text, _beforeMessage.Utf8);
        }

        writer.Write(message);
        if (_afterMessage != null)
        {
            writer.WriteLiteral(_afterMessage.Text, _afterMessage.Utf8);
        }

        WriteLineEnd(writer, exception);
    }

    /// <summary>The message and the packed line end in one write, when the event has no exception text to put between
    /// the literals; false, with nothing written, otherwise.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool TryWriteLine(EventBufferWriter writer, string message, string? exception) =>
        _lineEndLength >= 0 && string.IsNullOrEmpty(exception) && writer.TryWriteAscii(message, _lineEnd, _lineEndLength);

    /// <summary>What follows the message and its literal: the <c>%exception</c> part and its literal, and the
    /// exception after a layout that ignores exceptions.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void WriteLineEnd(EventBufferWriter writer, string? exception)
    {
        if (_exceptionInLine)
        {
            WriteExceptionAfter(writer, exception); // %exception writes the text and a newline, as after the layout
            if (_afterException != null)
            {
                writer.WriteLiteral(_afterException.Text, _afterException.Utf8);
            }
        }

        if (IgnoresException)
        {
            WriteExceptionAfter(writer, exception);
        }
    }

    /// <summary>Drops the last event rendered, so that nothing stays reachable from here while the appender is idle.</summary>
    public void Forget() => _event.Clear();

    /// <summary>Into any other writer: the parts assembled in the layout buffer.</summary>
    private void Render(TextWriter writer, LayoutEvent loggingEvent)
    {
        string? exception = IgnoresException ? loggingEvent.GetExceptionString() : null;
        FormatBuffered(writer, loggingEvent);
        WriteExceptionAfter(writer, exception);
    }

    /// <summary>Into the file appender's writer: straight into its bytes or chars when every part can.</summary>
    [MethodImpl(Jit.Optimized)]
    private void RenderTo(EventBufferWriter writer, LayoutEvent loggingEvent)
    {
        string? exception = IgnoresException ? loggingEvent.GetExceptionString() : null;
        if (!_direct)
        {
            FormatBuffered(writer, loggingEvent);
        }
#if NET8_0_OR_GREATER
        else if (writer.BytesWritable)
        {
            FormatUtf8(writer, loggingEvent);
        }
#endif
        else
        {
            FormatDirect(writer, loggingEvent, 0);
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
