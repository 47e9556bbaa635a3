using System;
using log4net.Core;
using log4net.Repository;
using log4net.Util;
using LowLatencyLog.Log4netInternals;

namespace LowLatencyLog.Capture;

/// <summary>
/// The rarely needed fields of a captured event (properties, location, user name, identity, and a domain other than
/// the process's), allocated only when <c>fix</c> selects one of them or the event's domain differs, so the queue slot
/// stays as narrow as it is.
/// </summary>
internal sealed class CapturedContext
{
    /// <summary>The flags captured into this object.</summary>
    public const FixFlags Flags = FixFlags.Properties | FixFlags.LocationInfo | FixFlags.UserName | FixFlags.Identity;

    /// <summary>
    /// With <see cref="FixFlags.Properties"/>: a property value of any type but a string, number, date, <c>Guid</c> or
    /// enum is rendered on the calling thread, with the repository's renderers, as log4net's layouts render it (set when
    /// every child reads properties as text, <see cref="FixResolver.ReadPropertiesAsText"/>). Its <c>ToString()</c> then
    /// runs where log4net's own appenders run it: on the calling thread, inside the appender's re-entrancy guard, and
    /// never on the worker (where a value that logs would log during a shutdown that holds log4net's locks).
    /// </summary>
    public const FixFlags PropertiesAsText = (FixFlags)0x40000000;

    private LocationInfo? _location;
    private readonly CallerLocation? _caller;

    private CapturedContext(PropertiesDictionary? properties, LocationInfo? location, CallerLocation? caller, string? userName, string? identity, string? domain)
    {
        Properties = properties;
        _location = location;
        _caller = caller;
        UserName = userName;
        Identity = identity;
        Domain = domain;
    }

    public PropertiesDictionary? Properties { get; }

    /// <summary>Worker thread. The location: log4net's own, or built here from the caller found on the logging thread.</summary>
    public LocationInfo? Location => _location ??= _caller?.ToLocationInfo();

    public string? UserName { get; }

    public string? Identity { get; }

    /// <summary>The event's domain: the process's friendly name, unless the event came with another or none.</summary>
    public string? Domain { get; }

    /// <summary>The process's friendly name: the domain of every event log4net creates in it.</summary>
    public static string ProcessDomain => EventFields.ProcessDomain;

    /// <summary>Producer thread: the context of a call site described at compile time (and confirmed), holding only its
    /// location: one for all its events.</summary>
    public static CapturedContext ForKnownCaller(CallerLocation caller) =>
        caller.SharedContext ??= new CapturedContext(null, null, caller, null, null, ProcessDomain);

    /// <summary>
    /// Producer thread. The context, or null when <paramref name="flags"/> select none of its fields and the event's
    /// <paramref name="domain"/> is the process's (an event built from <see cref="LoggingEventData"/>, or frozen by an
    /// earlier appender, may carry another, or none).
    /// </summary>
    public static CapturedContext? CaptureIfAny(LoggingEvent source, FixFlags flags, string? domain)
    {
        if ((flags & Flags) == 0 && domain == ProcessDomain)
        {
            return null;
        }

        CallerLocation? caller = null;
        if ((flags & (CallerLocation.MethodOnly | CallerLocation.WithFile)) != 0 && (flags & FixFlags.LocationInfo) != 0)
        {
            caller = CallerLocation.Capture(source, withFile: (flags & CallerLocation.WithFile) != 0);
            if (caller is { IsShared: true } && (flags & Flags & ~FixFlags.LocationInfo) == 0 && domain == ProcessDomain)
            {
                // A call site described at compile time, and nothing else to hold: one context for all its events.
                return ForKnownCaller(caller);
            }
        }

        return new CapturedContext(
            (flags & FixFlags.Properties) != 0 ? CaptureProperties(source, (flags & PropertiesAsText) != 0) : null,
            caller == null && (flags & FixFlags.LocationInfo) != 0 ? source.LocationInformation : null,
            caller,
            (flags & FixFlags.UserName) != 0 ? source.UserName : null,
            (flags & FixFlags.Identity) != 0 ? source.Identity : null,
            domain);
    }

    /// <summary>
    /// A private copy of the event's properties (global, logical-thread, thread and event properties merged, as on the
    /// producer thread), with <see cref="IFixingRequired"/> values replaced by their fixed form. NDC is a live
    /// <c>ThreadContextStack</c>: without this it would render whatever the stack holds when the worker formats.
    /// With <paramref name="asText"/>, values are rendered (<see cref="PropertiesAsText"/>).
    /// </summary>
    private static PropertiesDictionary CaptureProperties(LoggingEvent source, bool asText)
    {
        // GetProperties returns a dictionary the event caches and shares with siblings: copy, never modify it.
        bool built = EventFields.HasCompositeProperties(source);
        PropertiesDictionary live = source.GetProperties();
        if (!built)
        {
            EventFields.ForgetCompositeProperties(source);
        }

        var copy = new PropertiesDictionary();
        foreach (string key in live.GetKeys())
        {
            object? value = live[key];
            if (value is IFixingRequired fixing)
            {
                value = fixing.GetFixedObject();
            }

            if (asText && value != null && !IsInert(value))
            {
                value = Render(value, source.Repository);
            }

            copy[key] = value; // a null value too: %properties writes it, as for the live event
        }

        return copy;
    }

    /// <summary>Whether a value renders the same whenever it is rendered, without running application code: a string,
    /// a number, a date, a <c>Guid</c>, an enum.</summary>
    private static bool IsInert(object value)
    {
        Type type = value.GetType();
        return Type.GetTypeCode(type) != TypeCode.Object || type == typeof(Guid) || type == typeof(TimeSpan) || type == typeof(DateTimeOffset);
    }

    /// <summary>The text log4net's <c>%property</c> writes for <paramref name="value"/>.</summary>
    private static object Render(object value, ILoggerRepository? repository)
    {
        if (repository != null)
        {
            return repository.RendererMap.FindAndRender(value);
        }

        try
        {
            return value.ToString() ?? string.Empty; // log4net writes a null ToString() as nothing
        }
        catch (Exception)
        {
            return value; // rendered (and failing) where log4net would, in the child's layout
        }
    }
}
