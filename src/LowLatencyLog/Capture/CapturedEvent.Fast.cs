using System.Runtime.CompilerServices;
using System.Text;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Log4netInternals;

namespace LowLatencyLog.Capture;

// CapturedEvent, continued: an intercepted call captured without a LoggingEvent (the fast path, SPEC 22).
internal partial struct CapturedEvent
{
    private CapturedEvent(in FastCall call, string? message, StringBuilder? formatted, string? threadName, string? exceptionString, CapturedContext? context, bool objects)
    {
        MessageObject = objects ? call.FormatObject ?? (object?)call.Message : null;
        ExceptionObject = objects ? call.Exception : null;
        Level = call.Level;
        LoggerName = call.LoggerName;
        Repository = call.Repository;
        TimeStampUtc = call.TimeStampUtc;
        Message = message;
        TextChars = null;
        TextOffset = 0;
        TextLength = -1;
        Formatted = formatted;
        ThreadName = threadName;
        ExceptionString = exceptionString;
        Context = context;
    }

    /// <summary>
    /// Producer thread. What <see cref="CaptureForQueue"/> reads from the event log4net would have built for
    /// <paramref name="call"/>, read from the call itself: the same message text (a <c>*Format</c> message formatted
    /// as its <c>SystemStringFormat</c> would be, into this thread's builder), thread name and exception text, and the
    /// call site's location. <paramref name="flags"/> are an <see cref="IFastTarget"/>'s: no properties, user name or
    /// identity; <paramref name="caller"/> is the confirmed call site when they include the location;
    /// <paramref name="objects"/>: the event carries the message and exception objects, as from log4net's event.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static CapturedEvent CaptureFast(in FastCall call, FixFlags flags, CallerLocation? caller, bool objects)
    {
        string? message = null;
        StringBuilder? formatted = null;
        if ((flags & FixFlags.Message) != 0)
        {
            message = call.Format == null ? call.Message : FormatFast(in call, out formatted);
        }

        return new CapturedEvent(
            in call,
            message,
            formatted,
            (flags & FixFlags.ThreadName) != 0 ? EventFields.CurrentThreadName() : null,
            (flags & FixFlags.Exception) != 0 ? ExceptionText(in call) : null,
            caller != null ? CapturedContext.ForKnownCaller(caller) : null,
            objects);
    }

    private static string? FormatFast(in FastCall call, out StringBuilder? formatted)
    {
        if (!TryFormat(call.Provider, call.Format!, call.ArgCount, call.Arg0, call.Arg1, call.Arg2, call.Args, out formatted))
        {
            // log4net's rendering of its own fallback (the default renderer writes ToString()).
            return new SystemStringFormat(call.Provider, call.Format!, call.ArgumentArray()).ToString();
        }

        if (formatted!.Length > MessageText.MaxLength)
        {
            string message = LongMessage(formatted);
            formatted = null;
            return message;
        }

        return null;
    }

    // LoggingEvent.GetExceptionString: the repository's rendering of the exception (its ToString without one), or empty.
    private static string ExceptionText(in FastCall call) =>
        call.Exception == null ? string.Empty : call.Repository?.RendererMap.FindAndRender(call.Exception) ?? call.Exception.ToString();
}
