using System;
using System.Runtime.CompilerServices;
using log4net.Core;
using log4net.Repository;
using log4net.Util;

namespace LowLatencyLog.Capture;

/// <summary>
/// What a producer puts in a queue slot: the fields log4net sets when it creates an event (level, logger name, time
/// stamp, repository) and the fields <c>fix</c> selects, all read on the producer thread.
/// </summary>
/// <remarks>
/// <para>The shared event is only read through its getters here. They cache the producer's values into the event,
/// which is what a synchronous sibling appender would read anyway; <c>Fix</c> and <c>GetLoggingEventData</c> are never
/// used because both freeze the event for every later appender on the logger.</para>
/// <para>The slot keeps no reference to the source event: the worker never reads memory the producer's event lives in
/// (it stays in the producer's cache), and the event is garbage as soon as the log call returns, however long it
/// waits in the queue, so a full queue does not fill the older GC generations.</para>
/// </remarks>
internal readonly struct CapturedEvent
{
    /// <summary>The fields kept directly in the slot; anything else goes into a <see cref="CapturedContext"/>.</summary>
    public const FixFlags SlotFlags = FixFlags.Message | FixFlags.ThreadName | FixFlags.Exception;

    public readonly Level? Level;
    public readonly string? LoggerName;
    public readonly ILoggerRepository? Repository;
    public readonly DateTime TimeStampUtc;
    public readonly string? Message;
    public readonly string? ThreadName;
    public readonly string? ExceptionString;
    public readonly CapturedContext? Context;

    /// <summary>The event's domain: the one captured when it was not the process's, else the process's.</summary>
    public string? Domain => Context != null ? Context.Domain : CapturedContext.ProcessDomain;

    private CapturedEvent(LoggingEvent source, string? message, string? threadName, string? exceptionString, CapturedContext? context)
    {
        // Set once in the source's constructor; reading them computes nothing.
        Level = source.Level;
        LoggerName = source.LoggerName;
        Repository = source.Repository;
        TimeStampUtc = source.TimeStampUtc;
        Message = message;
        ThreadName = threadName;
        ExceptionString = exceptionString;
        Context = context;
    }

#if NET8_0_OR_GREATER
    /// <summary>Copies <paramref name="source"/> into a slot one field at a time (<see cref="Core.ItemCopy"/> says why).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Store(ref CapturedEvent destination, in CapturedEvent source)
    {
        Unsafe.AsRef(in destination.Level) = source.Level;
        Unsafe.AsRef(in destination.LoggerName) = source.LoggerName;
        Unsafe.AsRef(in destination.Repository) = source.Repository;
        Unsafe.AsRef(in destination.TimeStampUtc) = source.TimeStampUtc;
        Unsafe.AsRef(in destination.Message) = source.Message;
        Unsafe.AsRef(in destination.ThreadName) = source.ThreadName;
        // The usual values stored as constants, which need no write barrier: each barrier is a call.
        if (source.ExceptionString is { Length: > 0 } exception)
        {
            Unsafe.AsRef(in destination.ExceptionString) = exception;
        }
        else
        {
            Unsafe.AsRef(in destination.ExceptionString) = source.ExceptionString == null ? null : string.Empty;
        }

        if (source.Context is { } context)
        {
            Unsafe.AsRef(in destination.Context) = context;
        }
        else
        {
            Unsafe.AsRef(in destination.Context) = null;
        }
    }
#endif

    /// <summary>Producer thread. Reads what <paramref name="flags"/> selects; allocates nothing for the slot flags
    /// with a string message (on an unnamed thread, from its second event on).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static CapturedEvent Capture(LoggingEvent source, FixFlags flags)
    {
        string? domain = EventFields.Domain(source);
        return new CapturedEvent(
            source,
            (flags & FixFlags.Message) != 0 ? MessageOf(source) : null,
            (flags & FixFlags.ThreadName) != 0 ? EventFields.ThreadName(source) : null,
            (flags & FixFlags.Exception) != 0 ? source.GetExceptionString() : null,
            (flags & CapturedContext.Flags) != 0 || !ReferenceEquals(domain, CapturedContext.ProcessDomain)
                ? CapturedContext.CaptureIfAny(source, flags, domain)
                : null);
    }

    /// <summary>
    /// The message as log4net's <c>%message</c> writes it, <see cref="LoggingEvent.WriteRenderedMessage"/>: the cached
    /// text, else a string message, else the object through the repository's renderers; a subclass may override it.
    /// </summary>
    /// <remarks>
    /// For log4net's own event with a string message that is the string (its cached text can only be the same), read
    /// without a call. <see cref="LoggingEvent.RenderedMessage"/> is read only when there is no message object (an
    /// event built from <see cref="LoggingEventData"/>): for an object it would render with the invariant culture and
    /// cache that text in the shared event, which siblings would then write instead of rendering it themselves, and
    /// on an event that an earlier appender froze without the message it reads null while <c>%message</c> still
    /// writes the string.
    /// </remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static string? MessageOf(LoggingEvent source) =>
        source.MessageObject is string message && source.GetType() == typeof(LoggingEvent) ? message : RenderMessage(source);

    private static string? RenderMessage(LoggingEvent source)
    {
        if (source.GetType() == typeof(LoggingEvent) && source.MessageObject is null)
        {
            return source.RenderedMessage;
        }

        using var writer = new System.IO.StringWriter(); // the current culture, as a sibling's writer
        source.WriteRenderedMessage(writer);
        return writer.ToString();
    }

    /// <summary>
    /// Worker thread. A new event holding exactly the captured fields; fields that were not captured read empty,
    /// never the worker's own thread name, context or location.
    /// </summary>
    public LoggingEvent Rebuild()
    {
        CapturedContext? context = Context;
        var data = new LoggingEventData
        {
            LoggerName = LoggerName,
            Level = Level,
            TimeStampUtc = TimeStampUtc,
            Message = Message,
            ThreadName = ThreadName,
            ExceptionString = ExceptionString,
            Domain = Domain,
            LocationInfo = context?.Location,
            UserName = context?.UserName,
            Identity = context?.Identity,
            // Never null: with null properties log4net would build them from the worker's thread context.
            Properties = context?.Properties ?? new PropertiesDictionary(),
        };
        return Fixed(new LoggingEvent(null, Repository, data, FixFlags.All));
    }

    /// <summary>
    /// Locks an event built from <see cref="LoggingEventData"/>: its constructor leaves the cache updatable, so a null
    /// field would otherwise be computed lazily on the thread that reads it. Every flag is already marked fixed, so
    /// this recomputes nothing.
    /// </summary>
    public static LoggingEvent Fixed(LoggingEvent rebuilt)
    {
        rebuilt.Fix = FixFlags.All;
        return rebuilt;
    }
}
