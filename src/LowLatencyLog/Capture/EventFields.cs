using log4net.Core;
#if NET8_0_OR_GREATER
using System;
using System.Runtime.CompilerServices;
using System.Threading;
#endif

namespace LowLatencyLog.Capture;

/// <summary>
/// Reads of a log4net event that its getters would also cache into the shared event, without the caching: on the
/// producer's path the getter's call and its write into the event cost more than the read.
/// </summary>
/// <remarks>
/// The modern build reads log4net's private fields directly; if this log4net version does not have them (checked once),
/// and on netstandard2.0, it calls the getter.
/// </remarks>
internal static class EventFields
{
#if NET8_0_OR_GREATER
    private static readonly bool Readable = Probe();

    /// <summary>Whether log4net's fields are read (else the getters are called, with their caching).</summary>
    internal static bool ReadsFields => Readable;

    /// <summary><see cref="LoggingEvent.Domain"/>: the event's own, else the process's friendly name while the event is
    /// not frozen (what the getter would compute and cache), else null.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static string? Domain(LoggingEvent source) =>
        Readable ? Data(source).Domain ?? (CacheUpdatable(source) ? CapturedContext.ProcessDomain : null) : source.Domain;

    // The thread name log4net's getter gave this thread, and the Thread.Name it gave it for: the getter formats the
    // thread id into a new string on every event of an unnamed or thread-pool thread.
    [ThreadStatic]
    private static string? t_nameSeen;

    [ThreadStatic]
    private static string? t_threadName;

    /// <summary><see cref="LoggingEvent.ThreadName"/>: the event's own, else (while the event is not frozen) what the
    /// getter answers on this thread, asked once per thread and thread name, else null.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static string? ThreadName(LoggingEvent source)
    {
        if (!Readable)
        {
            return source.ThreadName;
        }

        string? name = Data(source).ThreadName;
        return name != null || !CacheUpdatable(source) ? name : CurrentThreadName(source);
    }

    private static string? CurrentThreadName(LoggingEvent source)
    {
        string? current = Thread.CurrentThread.Name;
        string? known = t_threadName;
        if (known != null && ReferenceEquals(current, t_nameSeen))
        {
            return known;
        }

        // log4net's own answer (it rules on unnamed and ".NET ..." threads), cached in this one event.
        known = source.ThreadName;
        t_nameSeen = current;
        t_threadName = known;
        return known;
    }

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_data")]
    private static extern ref LoggingEventData Data(LoggingEvent loggingEvent);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_cacheUpdatable")]
    private static extern ref bool CacheUpdatable(LoggingEvent loggingEvent);

    private static bool Probe()
    {
        try
        {
            // An event built from data stays updatable until it is fixed.
            var probe = new LoggingEvent(new LoggingEventData { Domain = "probe", ThreadName = "probe thread" });
            bool before = CacheUpdatable(probe);
            probe.Fix = FixFlags.All;
            return Data(probe).Domain == "probe" && Data(probe).ThreadName == "probe thread" && before && !CacheUpdatable(probe);
        }
        catch (MissingFieldException)
        {
            return false;
        }
    }
#else
    internal static bool ReadsFields => false;

    public static string? Domain(LoggingEvent source) => source.Domain;

    public static string? ThreadName(LoggingEvent source) => source.ThreadName;
#endif
}
