using System;
using System.Reflection;
using System.Threading;
using log4net.Core;
using log4net.ObjectRenderer;
using log4net.Repository;
using log4net.Util;
#if NET8_0_OR_GREATER
using System.Runtime.CompilerServices;
#endif

namespace LowLatencyLog.Log4netInternals;

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
    /// <summary>The process's friendly name: the domain of every event log4net creates in it.</summary>
    public static readonly string ProcessDomain = SystemInfo.ApplicationFriendlyName;

    // log4net 3.x keeps SystemStringFormat's provider in a primary-constructor field; the format and arguments are
    // public properties.
    private const string ProviderField = "<provider>P";

    private static readonly FieldInfo? ProviderInfo =
        typeof(SystemStringFormat).GetField(ProviderField, BindingFlags.Instance | BindingFlags.NonPublic) is { } field &&
        typeof(IFormatProvider).IsAssignableFrom(field.FieldType) ? field : null;

    /// <summary>Whether a <c>*Format</c> message's provider can be read (else log4net renders the message itself).</summary>
    internal static bool ReadsFormatProvider => ProviderInfo != null;

    /// <summary>The provider a <see cref="SystemStringFormat"/> formats with; false when this log4net version hides it.</summary>
    public static bool TryGetProvider(SystemStringFormat format, out IFormatProvider? provider)
    {
        if (ProviderInfo == null)
        {
            provider = null;
            return false;
        }

#if NET8_0_OR_GREATER
        provider = Provider(format);
#else
        provider = (IFormatProvider?)ProviderInfo.GetValue(format);
#endif
        return true;
    }

#if NET8_0_OR_GREATER
    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = ProviderField)]
    private static extern ref IFormatProvider? Provider(SystemStringFormat format);
#endif

    // log4net 3.x keeps an event's message and exception objects in auto-property backing fields; the constructor from
    // LoggingEventData leaves both null.
    private const string MessageObjectField = "<MessageObject>k__BackingField";
    private const string ExceptionObjectField = "<ExceptionObject>k__BackingField";

    private static readonly FieldInfo? MessageObjectInfo = Field(MessageObjectField, typeof(object));
    private static readonly FieldInfo? ExceptionObjectInfo = Field(ExceptionObjectField, typeof(Exception));

    /// <summary>Whether a rebuilt event can be given the original message and exception objects.</summary>
    internal static bool SetsObjects => MessageObjectInfo != null && ExceptionObjectInfo != null;

    /// <summary>
    /// Gives an event rebuilt from <see cref="LoggingEventData"/> the original event's message and exception objects, as
    /// log4net's own fixed events keep them (telemetry appenders, JSON layouts, <c>%exception{message}</c> and
    /// exception evaluators read them). Does nothing if this log4net version keeps them elsewhere.
    /// </summary>
    public static void SetObjects(LoggingEvent rebuilt, object? message, Exception? exception)
    {
        if (!SetsObjects)
        {
            return;
        }

#if NET8_0_OR_GREATER
        MessageObjectOf(rebuilt) = message;
        ExceptionObjectOf(rebuilt) = exception;
#else
        MessageObjectInfo!.SetValue(rebuilt, message);
        ExceptionObjectInfo!.SetValue(rebuilt, exception);
#endif
    }

#if NET8_0_OR_GREATER
    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = MessageObjectField)]
    private static extern ref object? MessageObjectOf(LoggingEvent loggingEvent);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = ExceptionObjectField)]
    private static extern ref Exception? ExceptionObjectOf(LoggingEvent loggingEvent);
#endif

    private static FieldInfo? Field(string name, Type type) =>
        typeof(LoggingEvent).GetField(name, BindingFlags.Instance | BindingFlags.NonPublic) is { } field && field.FieldType == type ? field : null;

    // The last repository asked about, and its answer: one repository in almost every application.
    private static RendererAnswer? s_renderer;

    /// <summary>
    /// Whether <paramref name="repository"/> renders a <see cref="SystemStringFormat"/> with log4net's default renderer,
    /// which writes its <c>ToString()</c> (true without a repository: the event then calls <c>ToString()</c> itself).
    /// </summary>
    public static bool RendersByDefault(ILoggerRepository? repository)
    {
        if (repository == null)
        {
            return true;
        }

        RendererAnswer? known = Volatile.Read(ref s_renderer);
        if (known != null && ReferenceEquals(known.Repository, repository))
        {
            return known.Default;
        }

        WatchConfiguration(repository);
        bool byDefault = repository.RendererMap.Get(typeof(SystemStringFormat)) is DefaultRenderer;
        Volatile.Write(ref s_renderer, new RendererAnswer(repository, byDefault));
        return byDefault;
    }

    // Repositories whose configuration events forget the answer: a reconfiguration may add or remove a renderer.
    private static readonly System.Runtime.CompilerServices.ConditionalWeakTable<ILoggerRepository, object> Watched =
        new System.Runtime.CompilerServices.ConditionalWeakTable<ILoggerRepository, object>();

    private static void WatchConfiguration(ILoggerRepository repository)
    {
        lock (Watched)
        {
            if (Watched.TryGetValue(repository, out _))
            {
                return;
            }

            Watched.Add(repository, Watched);
        }

        repository.ConfigurationReset += (_, _) => Volatile.Write(ref s_renderer, null);
        repository.ConfigurationChanged += (_, _) => Volatile.Write(ref s_renderer, null);
    }

    private sealed class RendererAnswer
    {
        public RendererAnswer(ILoggerRepository repository, bool byDefault)
        {
            Repository = repository;
            Default = byDefault;
        }

        public ILoggerRepository Repository { get; }

        public bool Default { get; }
    }

#if NET8_0_OR_GREATER
    private static readonly bool Readable = Probe();

    /// <summary>Whether log4net's fields are read (else the getters are called, with their caching).</summary>
    internal static bool ReadsFields => Readable;

    /// <summary>Whether this build reads log4net's event fields at all (the netstandard2.0 build calls the getters).</summary>
    internal const bool ReadsFieldsInThisBuild = true;

    /// <summary><see cref="LoggingEvent.Domain"/>: the event's own, else the process's friendly name while the event is
    /// not frozen (what the getter would compute and cache), else null.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static string? Domain(LoggingEvent source) =>
        Readable ? Data(source).Domain ?? (CacheUpdatable(source) ? ProcessDomain : null) : source.Domain;

    // The thread name log4net's getter gave this thread, and the Thread.Name it gave it for: the getter formats the
    // thread id into a new string on every event of an unnamed or thread-pool thread.
    [ThreadStatic]
    private static string? t_nameSeen;

    [ThreadStatic]
    private static string? t_threadName;

    /// <summary>The message text log4net rendered and cached in the event (what its <c>WriteRenderedMessage</c> writes
    /// first), or null; never renders it.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static string? CachedMessage(LoggingEvent source) => Readable ? Data(source).Message : null;

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

    /// <summary>What log4net's <see cref="LoggingEvent.ThreadName"/> answers on this thread, without an event of the
    /// caller's (an intercepted call on the fast path): asked of a new event once per thread and thread name.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static string? CurrentThreadName()
    {
        string? known = t_threadName;
        return known != null && ReferenceEquals(Thread.CurrentThread.Name, t_nameSeen) ? known : CurrentThreadName(null);
    }

    private static string? CurrentThreadName(LoggingEvent? source)
    {
        string? current = Thread.CurrentThread.Name;
        string? known = t_threadName;
        if (known != null && ReferenceEquals(current, t_nameSeen))
        {
            return known;
        }

        // log4net's own answer (it rules on unnamed and ".NET ..." threads), cached in this one event.
        known = (source ?? new LoggingEvent(typeof(EventFields), null, string.Empty, Level.Info, null, null)).ThreadName;
        t_nameSeen = current;
        t_threadName = known;
        return known;
    }

    /// <summary>
    /// The type whose frames end the logging call on the stack (log4net's <c>LogImpl</c>, or a wrapper's own type), if
    /// the event may still compute its location (not computed yet, not frozen); else null, and the getter answers.
    /// </summary>
    public static Type? PendingLocationBoundary(LoggingEvent source) =>
        BoundaryReadable && Data(source).LocationInfo == null && CacheUpdatable(source) ? CallerBoundary(source) : null;

    private static readonly bool BoundaryReadable = Readable && ProbeBoundary();

    /// <summary>Whether this log4net keeps the boundary type where it is read (checked once).</summary>
    internal static bool ReadsLocationBoundary => BoundaryReadable;

    private static bool ProbeBoundary()
    {
        try
        {
            return CallerBoundary(new LoggingEvent(typeof(EventFields), null, "probe", Level.Info, "probe", null)) == typeof(EventFields);
        }
        catch (MissingFieldException)
        {
            return false;
        }
    }

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_callerStackBoundaryDeclaringType")]
    private static extern ref Type? CallerBoundary(LoggingEvent loggingEvent);

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

    internal const bool ReadsFieldsInThisBuild = false;

    public static string? Domain(LoggingEvent source) => source.Domain;

    public static string? ThreadName(LoggingEvent source) => source.ThreadName;

    /// <summary>What log4net's <see cref="LoggingEvent.ThreadName"/> answers on this thread (unused in this build: it
    /// has no fast path).</summary>
    public static string? CurrentThreadName() => new LoggingEvent(typeof(EventFields), null, string.Empty, Level.Info, null, null).ThreadName;

    private static readonly Func<LoggingEvent, string?>? CachedMessageReader = BuildCachedMessageReader();

    /// <summary>The message text log4net rendered and cached in the event, or null; never renders it.</summary>
    public static string? CachedMessage(LoggingEvent source) => CachedMessageReader?.Invoke(source);

    private static Func<LoggingEvent, string?>? BuildCachedMessageReader()
    {
        try
        {
            FieldInfo? data = typeof(LoggingEvent).GetField("_data", BindingFlags.Instance | BindingFlags.NonPublic);
            if (data == null || data.FieldType != typeof(LoggingEventData))
            {
                return null;
            }

            System.Linq.Expressions.ParameterExpression e = System.Linq.Expressions.Expression.Parameter(typeof(LoggingEvent), "e");
            return System.Linq.Expressions.Expression.Lambda<Func<LoggingEvent, string?>>(
                System.Linq.Expressions.Expression.Field(System.Linq.Expressions.Expression.Field(e, data), nameof(LoggingEventData.Message)), e).Compile();
        }
        catch (Exception)
        {
            return null; // a log4net without the field, or a runtime that cannot compile: the arguments are formatted
        }
    }

    internal static bool ReadsLocationBoundary => false;

    public static Type? PendingLocationBoundary(LoggingEvent source) => null;
#endif

    // log4net builds an event's composite properties once, from the fix flags it has then, and a later Fix reuses
    // them; so a sibling that fixes the user name or identity after a capture must not find them already built.
    private static readonly FieldInfo? CompositeField =
        typeof(LoggingEvent).GetField("_compositeProperties", BindingFlags.NonPublic | BindingFlags.Instance);
    private static readonly Func<LoggingEvent, bool>? CompositeBuilt = CompositeField == null ? null : BuildIsSet(CompositeField);
    private static readonly Action<LoggingEvent>? CompositeForget = CompositeField == null ? null : BuildClear(CompositeField);

    /// <summary>Whether the event's built composite properties can be seen and forgotten.</summary>
    internal static bool ReadsCompositeProperties => CompositeForget != null;

    /// <summary>Whether the event has built its composite properties (true when that cannot be seen).</summary>
    public static bool HasCompositeProperties(LoggingEvent source) => CompositeBuilt == null || CompositeBuilt(source);

    /// <summary>Makes the event build its composite properties again on their next read.</summary>
    public static void ForgetCompositeProperties(LoggingEvent source) => CompositeForget?.Invoke(source);

    private static Func<LoggingEvent, bool> BuildIsSet(FieldInfo field)
    {
        System.Linq.Expressions.ParameterExpression e = System.Linq.Expressions.Expression.Parameter(typeof(LoggingEvent), "e");
        return System.Linq.Expressions.Expression.Lambda<Func<LoggingEvent, bool>>(
            System.Linq.Expressions.Expression.NotEqual(
                System.Linq.Expressions.Expression.Field(e, field), System.Linq.Expressions.Expression.Constant(null, field.FieldType)), e).Compile();
    }

    private static Action<LoggingEvent> BuildClear(FieldInfo field)
    {
        System.Linq.Expressions.ParameterExpression e = System.Linq.Expressions.Expression.Parameter(typeof(LoggingEvent), "e");
        return System.Linq.Expressions.Expression.Lambda<Action<LoggingEvent>>(
            System.Linq.Expressions.Expression.Assign(
                System.Linq.Expressions.Expression.Field(e, field), System.Linq.Expressions.Expression.Constant(null, field.FieldType)), e).Compile();
    }
}
