using log4net.Core;
using log4net.Util;

namespace LowLatencyLog.Capture;

/// <summary>
/// The rarely needed fields of a captured event (properties, location, user name, identity), allocated only when
/// <c>fix</c> selects one of them, so the queue slot stays five references wide.
/// </summary>
internal sealed class CapturedContext
{
    /// <summary>The flags captured into this object.</summary>
    public const FixFlags Flags = FixFlags.Properties | FixFlags.LocationInfo | FixFlags.UserName | FixFlags.Identity;

    private CapturedContext(PropertiesDictionary? properties, LocationInfo? location, string? userName, string? identity)
    {
        Properties = properties;
        Location = location;
        UserName = userName;
        Identity = identity;
    }

    public PropertiesDictionary? Properties { get; }

    public LocationInfo? Location { get; }

    public string? UserName { get; }

    public string? Identity { get; }

    /// <summary>Producer thread.</summary>
    public static CapturedContext Capture(LoggingEvent source, FixFlags flags) =>
        new CapturedContext(
            (flags & FixFlags.Properties) != 0 ? CaptureProperties(source) : null,
            (flags & FixFlags.LocationInfo) != 0 ? source.LocationInformation : null,
            (flags & FixFlags.UserName) != 0 ? source.UserName : null,
            (flags & FixFlags.Identity) != 0 ? source.Identity : null);

    /// <summary>
    /// A private copy of the event's properties (global, logical-thread, thread and event properties merged, as on the
    /// producer thread), with <see cref="IFixingRequired"/> values replaced by their fixed form. NDC is a live
    /// <c>ThreadContextStack</c>: without this it would render whatever the stack holds when the worker formats.
    /// </summary>
    private static PropertiesDictionary CaptureProperties(LoggingEvent source)
    {
        // GetProperties returns a dictionary the event caches and shares with siblings: copy, never modify it.
        PropertiesDictionary live = source.GetProperties();
        var copy = new PropertiesDictionary();
        foreach (string key in live.GetKeys())
        {
            object? value = live[key];
            if (value is IFixingRequired fixing)
            {
                value = fixing.GetFixedObject();
            }

            if (value != null)
            {
                copy[key] = value;
            }
        }

        return copy;
    }
}
