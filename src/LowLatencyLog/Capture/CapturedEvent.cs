using System;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;
using log4net.Core;
using log4net.Repository;
using log4net.Util;

using LowLatencyLog.Engine;
using LowLatencyLog.Log4netInternals;

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
/// <para>Mutable so that the storage rules (<see cref="Store"/>, <see cref="Take"/>, <see cref="Clear"/>) write a slot
/// field by field; only they write fields. The members are <c>readonly</c>, so an item passed <c>in</c> is never copied.</para>
/// </remarks>
internal partial struct CapturedEvent : ISlotItem<CapturedEvent>
{
    /// <summary>The fields kept directly in the slot; anything else goes into a <see cref="CapturedContext"/>.</summary>
    public const FixFlags SlotFlags = FixFlags.Message | FixFlags.ThreadName | FixFlags.Exception;

    public Level? Level;
    public string? LoggerName;
    public ILoggerRepository? Repository;
    public DateTime TimeStampUtc;

    /// <summary>The message as a string: in a producer's item, any string message; in a slot, only one longer than
    /// <see cref="MessageText.MaxLength"/> (shorter ones are copied into the slot's text region).</summary>
    public string? Message;

    /// <summary>Slots and batch entries only: the arena that holds the region of text storage the slot owns
    /// (<see cref="MessageText.AllocateArena"/>; the same array for every slot of a buffer, or a slot's own region),
    /// kept with the slot from one event to the next.</summary>
    public char[]? TextChars;

    /// <summary>Where the slot's region starts in <see cref="TextChars"/>.</summary>
    public int TextOffset;

    /// <summary>The length of the message held in the slot's region; -1 when it holds none (the region is spare).</summary>
    public int TextLength;

    /// <summary>A producer's item only: a <c>*Format</c> message formatted on the calling thread into that thread's
    /// builder, copied into the slot's text region when the item is stored.</summary>
    public StringBuilder? Formatted;

    public string? ThreadName;
    public string? ExceptionString;
    public CapturedContext? Context;

    /// <summary>The original event's message object, carried only for children that may read it (not for the
    /// library's own file appenders, so their buffers keep no caller's objects alive).</summary>
    public object? MessageObject;

    /// <summary>The original event's exception object, carried with <see cref="MessageObject"/>.</summary>
    public Exception? ExceptionObject;

    /// <inheritdoc/>
    readonly SlotStorage<CapturedEvent> ISlotItem<CapturedEvent>.Storage => CapturedEventStorage.Instance;

    /// <summary>The slot's message text, when the message was copied into its region.</summary>
    public readonly MessageText? OwnedText => HasText ? new MessageText(TextChars!, TextOffset, TextLength) : null;

    /// <summary>Whether the slot's region holds the message.</summary>
    public readonly bool HasText => TextLength >= 0 && TextChars != null;

    /// <summary>Whether the event has a message at all (a rebuilt event without one writes nothing for it).</summary>
    public readonly bool HasMessage => Message != null || HasText || Formatted != null;

    /// <summary>Worker side: the message as a string (a new one when it is held as text).</summary>
    public readonly string? MessageString => HasText ? new string(TextChars!, TextOffset, TextLength) : Message ?? Formatted?.ToString();

    /// <summary>The event's domain: the one captured when it was not the process's, else the process's.</summary>
    public readonly string? Domain => Context != null ? Context.Domain : CapturedContext.ProcessDomain;

    private CapturedEvent(LoggingEvent source, string? message, StringBuilder? formatted, string? threadName, string? exceptionString, CapturedContext? context, bool objects)
    {
        MessageObject = objects ? source.MessageObject : null;
        ExceptionObject = objects ? source.ExceptionObject : null;
        // Set once in the source's constructor; reading them computes nothing.
        Level = source.Level;
        LoggerName = source.LoggerName;
        Repository = source.Repository;
        TimeStampUtc = source.TimeStampUtc;
        Message = message;
        TextChars = null;
        TextOffset = 0;
        TextLength = -1;
        Formatted = formatted;
        ThreadName = threadName;
        ExceptionString = exceptionString;
        Context = context;
    }

    private CapturedEvent(in CapturedEvent source, string? message, char[]? chars, int offset, int length)
    {
        MessageObject = source.MessageObject;
        ExceptionObject = source.ExceptionObject;
        Level = source.Level;
        LoggerName = source.LoggerName;
        Repository = source.Repository;
        TimeStampUtc = source.TimeStampUtc;
        Message = message;
        TextChars = chars;
        TextOffset = offset;
        TextLength = length;
        Formatted = null;
        ThreadName = source.ThreadName;
        ExceptionString = source.ExceptionString;
        Context = source.Context;
    }

    private CapturedEvent(char[]? chars, int offset, Level? level = null)
    {
        this = default;
        TextChars = chars;
        TextOffset = offset;
        TextLength = -1;
        Level = level;
    }

    /// <summary>The level of a slot whose store threw (<see cref="Skip"/>): the worker drops it.</summary>
    internal static readonly Level SkippedMark = new Level(int.MinValue, "LowLatencyLog.SkippedSlot");

    /// <summary>Producer side, after <see cref="Store"/> threw in a claimed slot: the slot holds the skipped mark and
    /// keeps its text region.</summary>
    public static void Skip(ref CapturedEvent slot) => slot = new CapturedEvent(slot.TextChars, slot.TextOffset, SkippedMark);

    /// <summary>Producer thread. Reads what <paramref name="flags"/> selects into an item that holds its own message
    /// (for the early events, tests and other holders that keep it).</summary>
    public static CapturedEvent Capture(LoggingEvent source, FixFlags flags, bool objects = false)
    {
        CapturedEvent item = CaptureForQueue(source, flags, objects);
        if (item.Formatted is { } formatted)
        {
            item = new CapturedEvent(in item, formatted.ToString(), null, 0, -1);
            ReturnBuilder(formatted);
        }

        return item;
    }

    /// <summary>
    /// Producer thread. Reads what <paramref name="flags"/> selects into an item for <see cref="Store"/>; allocates
    /// nothing for the slot flags with a string or <c>*Format</c> message (on an unnamed thread, from its second event
    /// on). A <c>*Format</c> message is formatted into this thread's builder, which the item holds until the queue has
    /// copied it into the slot; the caller then gives it back (<see cref="Release"/>). A message longer than a slot's
    /// storage becomes a string here, before any slot is claimed (nothing that can throw runs between a claim and its
    /// publication but the copy into the slot).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static CapturedEvent CaptureForQueue(LoggingEvent source, FixFlags flags, bool objects = false)
    {
        string? domain = EventFields.Domain(source);
        string? message = null;
        StringBuilder? formatted = null;
        if ((flags & FixFlags.Message) != 0)
        {
            message = MessageOf(source, out formatted);
            if (formatted != null && formatted.Length > MessageText.MaxLength)
            {
                message = LongMessage(formatted);
                formatted = null;
            }
        }

        return new CapturedEvent(
            source,
            message,
            formatted,
            (flags & FixFlags.ThreadName) != 0 ? EventFields.ThreadName(source) : null,
            (flags & FixFlags.Exception) != 0 ? source.GetExceptionString() : null,
            (flags & CapturedContext.Flags) != 0 || !ReferenceEquals(domain, CapturedContext.ProcessDomain)
                ? CapturedContext.CaptureIfAny(source, flags, domain)
                : null,
            objects);
    }

    /// <summary>This thread's formatting builder while no capture holds it; null while one does, so that a log call
    /// made during the formatting (an argument's <c>ToString</c> that logs) formats into a builder of its own.</summary>
    [ThreadStatic]
    private static StringBuilder? t_formatted;

    /// <summary>The largest builder kept for the thread (chars); a larger one, grown by a long message, is dropped, as
    /// the framework's <c>StringBuilderCache</c> does, so that a thread does not keep (and clear) it for good.</summary>
    internal const int KeptBuilderCapacity = 4 * MessageText.MaxLength;

    /// <summary>Producer thread, once the item is stored (or dropped): gives the item's builder back to the thread.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Release(in CapturedEvent item)
    {
        if (item.Formatted is { } formatted)
        {
            ReturnBuilder(formatted);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void ReturnBuilder(StringBuilder builder)
    {
        if (builder.Capacity <= KeptBuilderCapacity)
        {
            t_formatted = builder;
        }
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static string LongMessage(StringBuilder formatted)
    {
        string message = formatted.ToString();
        ReturnBuilder(formatted);
        return message;
    }

    /// <summary>
    /// The message as log4net's <c>%message</c> writes it, <see cref="LoggingEvent.WriteRenderedMessage"/>: the cached
    /// text, else a string message, else the object through the repository's renderers; a subclass may override it.
    /// A <c>*Format</c> message (<see cref="SystemStringFormat"/> with the default renderer) is formatted as its
    /// <c>ToString</c> would, with the same provider, into <paramref name="formatted"/> instead of a new string.
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
    private static string? MessageOf(LoggingEvent source, out StringBuilder? formatted)
    {
        formatted = null;
        object? message = source.MessageObject;
        if (source.GetType() == typeof(LoggingEvent))
        {
            if (message is string text)
            {
                return text;
            }

            // Text log4net rendered and cached already (a fixing buffer, a filter, an earlier appender read it) is
            // what its own appenders write; the arguments may have changed since.
            if (EventFields.CachedMessage(source) is { } cached)
            {
                return cached;
            }

            if (message is SystemStringFormat format && TryFormat(source, format, out formatted))
            {
                return null;
            }
        }

        return RenderMessage(source);
    }

    /// <summary>
    /// <see cref="SystemStringFormat"/>'s <c>ToString</c>, <c>string.Format(provider, Format, Args)</c>, into this
    /// thread's builder. False, for log4net to render it, when anything differs from that plain case: a custom
    /// renderer, a null format or arguments, a provider this log4net version hides, or a
    /// formatting error (log4net writes its own error text for it).
    /// </summary>
    private static bool TryFormat(LoggingEvent source, SystemStringFormat format, out StringBuilder? formatted)
    {
        formatted = null;
        string? pattern = format.Format;
        object?[]? args = format.Args;
        if (pattern == null || args == null || !EventFields.TryGetProvider(format, out IFormatProvider? provider) || !EventFields.RendersByDefault(source.Repository))
        {
            return false;
        }

        return TryFormat(provider, pattern, -1, null, null, null, args, out formatted);
    }

    /// <summary><see cref="TryFormat(LoggingEvent, SystemStringFormat, out StringBuilder?)"/>'s formatting, with the
    /// arguments as an array (<paramref name="argCount"/> -1) or as 1 to 3 values (no array).</summary>
    private static bool TryFormat(IFormatProvider? provider, string pattern, int argCount, object? arg0, object? arg1, object? arg2, object?[]? args, out StringBuilder? formatted)
    {
        formatted = null;

        // Taken from the thread while in use: an argument's ToString() may log, and that call must not write into it.
        StringBuilder builder = t_formatted ?? new StringBuilder(MessageText.MaxLength);
        t_formatted = null;
        builder.Clear();
        try
        {
            _ = argCount switch
            {
                -1 => builder.AppendFormat(provider, pattern, args!),
                1 => builder.AppendFormat(provider, pattern, arg0),
                2 => builder.AppendFormat(provider, pattern, arg0, arg1),
                _ => builder.AppendFormat(provider, pattern, arg0, arg1, arg2),
            };
        }
        catch (Exception e) when (e is not OutOfMemoryException and not ThreadAbortException)
        {
            // log4net's own answer to a format that fails, from this failure: formatting again would run the
            // arguments' ToString() a second time (they may count, log or change).
            LogLog.Warn(typeof(SystemStringFormat), $"Exception while rendering format [{pattern}]", e);
            builder.Clear();
            object?[] all = argCount switch
            {
                -1 => args!,
                1 => new[] { arg0 },
                2 => new[] { arg0, arg1 },
                _ => new[] { arg0, arg1, arg2 },
            };
            if (!TryWriteFormatError(builder, e, pattern, all))
            {
                ReturnBuilder(builder);
                return false;
            }
        }
        catch (Exception)
        {
            ReturnBuilder(builder);
            return false;
        }

        formatted = builder;
        return true;
    }

    /// <summary>The text log4net's <c>SystemStringFormat</c> writes for a format that failed, byte for byte.</summary>
    private static bool TryWriteFormatError(StringBuilder builder, Exception failure, string pattern, object?[] args)
    {
        try
        {
            builder.Append("<log4net.Error>Exception during StringFormat: ").Append(failure.Message);
            builder.Append(" <format>").Append(pattern).Append("</format><args>{");
            for (int i = 0; i < args.Length; i++)
            {
                if (i > 0)
                {
                    builder.Append(", ");
                }

                if (args[i] is null)
                {
                    builder.Append(SystemInfo.NullText);
                    continue;
                }

                int mark = builder.Length;
                try
                {
                    builder.Append(args[i]);
                }
                catch (Exception e) when (e is not OutOfMemoryException and not ThreadAbortException)
                {
                    builder.Length = mark;
                    builder.Append("<Exception: ").Append(e.Message).Append('>');
                }
            }

            builder.Append("}</args></log4net.Error>");
            return true;
        }
        catch (Exception)
        {
            return false; // log4net's own fallback text, through its rendering
        }
    }

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
    public readonly LoggingEvent Rebuild()
    {
        CapturedContext? context = Context;
        var data = new LoggingEventData
        {
            LoggerName = LoggerName,
            Level = Level,
            TimeStampUtc = TimeStampUtc,
            Message = MessageString,
            ThreadName = ThreadName,
            ExceptionString = ExceptionString,
            Domain = Domain,
            LocationInfo = context?.Location,
            UserName = context?.UserName,
            Identity = context?.Identity,
            // Never null: with null properties log4net would build them from the worker's thread context.
            Properties = context?.Properties ?? new PropertiesDictionary(),
        };
        LoggingEvent rebuilt = Fixed(new LoggingEvent(null, Repository, data, FixFlags.All));
        if (MessageObject != null || ExceptionObject != null)
        {
            EventFields.SetObjects(rebuilt, MessageObject, ExceptionObject);
        }

        return rebuilt;
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
