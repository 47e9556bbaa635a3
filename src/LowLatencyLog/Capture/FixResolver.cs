using System;
using System.Collections;
using System.Collections.Generic;
using System.Reflection;
using log4net.Appender;
using log4net.Core;
using log4net.Filter;
using log4net.Layout;
using log4net.Util;
using LowLatencyLog.Log4netInternals;

namespace LowLatencyLog.Capture;

/// <summary>
/// Works out which volatile fields a child appender's layouts read (<c>fix=Auto</c>), and normalizes explicit flags.
/// </summary>
/// <remarks>
/// log4net exposes no list of the fields a layout needs. For a <see cref="PatternLayout"/> the pattern is parsed again
/// with the protected <c>CreatePatternParser</c>, given the converters registered on that layout instance
/// (<c>&lt;converter&gt;</c>), and the converter chain is matched against log4net's own converter types (internal, so by
/// name within log4net's assembly). A converter registered on the instance, a converter type from elsewhere, a layout
/// type derived from <see cref="PatternLayout"/> and a layout type this class does not know get
/// <see cref="FixFlags.Partial"/>. Besides <see cref="AppenderSkeleton.Layout"/>, every public layout-valued property
/// of a child (<c>TraceAppender.Category</c>, the syslog appenders' <c>Identity</c>) and the parameters of an
/// <see cref="AdoNetAppender"/> are inspected.
/// </remarks>
internal static partial class FixResolver
{
    /// <summary>What <c>fix=Auto</c> always captures: cheap, and read by almost every layout.</summary>
    public const FixFlags Always = FixFlags.Message | FixFlags.ThreadName | FixFlags.Exception;

    /// <summary>Everything the capture can take. <see cref="FixFlags.Domain"/> is always filled in by the worker.</summary>
    public const FixFlags Capturable = CapturedEvent.SlotFlags | CapturedContext.Flags;

    private static readonly Assembly Log4net = typeof(PatternLayout).Assembly;

    private static readonly Dictionary<string, FixFlags> ConverterNeeds = new Dictionary<string, FixFlags>
    {
        ["MessagePatternConverter"] = FixFlags.Message,
        ["ThreadPatternConverter"] = FixFlags.ThreadName,
        ["ExceptionPatternConverter"] = FixFlags.Exception,
        ["PropertyPatternConverter"] = FixFlags.Properties,
        ["NdcPatternConverter"] = FixFlags.Properties,
        ["FullLocationPatternConverter"] = FixFlags.LocationInfo,
        ["LineLocationPatternConverter"] = FixFlags.LocationInfo,
        ["MethodLocationPatternConverter"] = FixFlags.LocationInfo,
        ["FileLocationPatternConverter"] = FixFlags.LocationInfo,
        ["TypeNamePatternConverter"] = FixFlags.LocationInfo,
        ["StackTracePatternConverter"] = FixFlags.LocationInfo,
        ["StackTraceDetailPatternConverter"] = FixFlags.LocationInfo,
        ["UserNamePatternConverter"] = FixFlags.UserName,
        ["IdentityPatternConverter"] = FixFlags.Identity,
        // Fields set at construction, or the same on every thread: nothing to capture.
        ["AppDomainPatternConverter"] = FixFlags.None,
        ["LiteralPatternConverter"] = FixFlags.None,
        ["NewLinePatternConverter"] = FixFlags.None,
        ["DatePatternConverter"] = FixFlags.None,
        ["UtcDatePatternConverter"] = FixFlags.None,
        ["LevelPatternConverter"] = FixFlags.None,
        ["LoggerPatternConverter"] = FixFlags.None,
        ["RelativeTimePatternConverter"] = FixFlags.None,
    };

    /// <summary><see cref="FixFlags.Partial"/>, for a reader the resolver cannot see into (noted: it may read the
    /// location too).</summary>
    private static FixFlags Unknown
    {
        get
        {
            t_unknownReader = true;
            return FixFlags.Partial;
        }
    }

    [ThreadStatic]
    private static bool t_unknownReader;

    /// <summary>
    /// What the calling thread captures for <paramref name="children"/>: <paramref name="fix"/>, or for <c>fix=Auto</c>
    /// (null) <see cref="Always"/> plus what the children read; with location, the caller-location mode
    /// (<see cref="CallerLocation.MethodOnly"/> or <see cref="CallerLocation.WithFile"/>) as well. <paramref name="debug"/>
    /// takes a note for each child of unknown type, <paramref name="warn"/> a warning for each child that makes every
    /// call read the stack.
    /// </summary>
    public static FixFlags Resolve(FixFlags? fix, IAppender[] children, Action<string> debug, Action<string> warn)
    {
        FixFlags flags;
        if (fix == null)
        {
            flags = Always;
            foreach (IAppender child in children)
            {
                flags |= Required(child);
                if (!IsKnownType(child))
                {
                    debug($"fix=Auto captures the properties for appender [{child.Name}], whose type ({child.GetType().FullName}) it does not know; set fix to leave them out.");
                }
            }
        }
        else
        {
            flags = fix.Value;
        }

        return WithLocationCapture(flags, children, warn);
    }

    /// <summary>Warns about each field a child reads that an explicit <paramref name="fix"/> leaves out (it reaches
    /// the child empty), and about converters that read the worker's ambient state (<see cref="WorkerAmbientConverters(IAppender)"/>).</summary>
    public static void WarnAboutMisses(FixFlags? fix, IAppender[] examined, Action<string> warn)
    {
        if (fix == null)
        {
            return;
        }

        foreach (IAppender child in examined)
        {
            FixFlags missing = Required(child) & ~fix.Value;
            if (missing != FixFlags.None)
            {
                warn($"fix={fix.Value} does not capture {missing}, which appender [{child.Name}] uses; " +
                    "those fields reach it empty. Add them to fix, or use fix=Auto.");
            }
        }
    }

    /// <summary>Warns about each converter that reads the current HTTP request when the event is written: behind an
    /// async appender, on the worker thread, which has none.</summary>
    public static void WarnAboutWorkerAmbient(IAppender[] examined, Action<string> warn)
    {
        foreach (IAppender child in examined)
        {
            foreach ((IAppender appender, string converter) in WorkerAmbientConverters(child))
            {
                warn($"the layout of appender [{appender.Name}] uses {converter}, which reads the current " +
                    "HTTP request when the event is written: behind an async appender that is the worker thread, which has none, so it writes " +
                    "what it writes without a request. Set the value as a property on the logging thread (for example " +
                    "LogicalThreadContext.Properties[\"url\"] in a request filter) and write %property{url} instead.");
            }
        }
    }

    /// <summary>Maps log4net's vestigial <c>Mdc</c>/<c>Ndc</c> flags to <see cref="FixFlags.Properties"/>, where log4net
    /// keeps MDC and NDC, and drops what cannot be captured.</summary>
    public static FixFlags Normalize(FixFlags flags)
    {
        if ((flags & (FixFlags.Mdc | FixFlags.Ndc)) != 0)
        {
            flags |= FixFlags.Properties;
        }

        return flags & Capturable;
    }

    private static readonly System.Text.RegularExpressions.Regex AspNetConverter = new System.Text.RegularExpressions.Regex(
        @"%[-0-9.]*(aspnet-(?:cache|context|request|session))", System.Text.RegularExpressions.RegexOptions.IgnoreCase | System.Text.RegularExpressions.RegexOptions.CultureInvariant);

    /// <summary>
    /// The converters in the pattern layouts of <paramref name="appender"/> (and of appenders nested under it) that read
    /// ambient state when the event is rendered, which on the worker thread is not the caller's: log4net's
    /// <c>%aspnet-*</c> converters read the current HTTP request, and no fix flag covers them.
    /// </summary>
    public static IEnumerable<(IAppender Appender, string Converter)> WorkerAmbientConverters(IAppender appender) =>
        WorkerAmbientConverters(appender, new HashSet<IAppender>());

    private static IEnumerable<(IAppender Appender, string Converter)> WorkerAmbientConverters(IAppender appender, HashSet<IAppender> visited)
    {
        if (!visited.Add(appender))
        {
            yield break;
        }

        if ((appender as AppenderSkeleton)?.Layout is PatternLayout { ConversionPattern: { } pattern })
        {
            foreach (System.Text.RegularExpressions.Match match in AspNetConverter.Matches(pattern))
            {
                yield return (appender, "%" + match.Groups[1].Value);
            }
        }

        if (appender is IAppenderAttachable parent)
        {
            foreach (IAppender child in parent.Appenders)
            {
                foreach ((IAppender, string) found in WorkerAmbientConverters(child, visited))
                {
                    yield return found;
                }
            }
        }
    }

    /// <summary>
    /// Whether every reader of the properties among <paramref name="children"/> (and the appenders nested under them)
    /// writes them as text, rendered with the repository's renderers: log4net's and this library's appenders, with
    /// layouts and filters this class knows. Then a value may be rendered on the calling thread
    /// (<see cref="CapturedContext.PropertiesAsText"/>); otherwise a reader may want the object itself (a JSON layout,
    /// an ADO.NET parameter), and values are carried as they are.
    /// </summary>
    public static bool ReadPropertiesAsText(IAppender[] children)
    {
        var visited = new HashSet<IAppender>();
        t_unknownReader = false;
        foreach (IAppender child in children)
        {
            if (!AllKnownTypes(child, visited))
            {
                return false;
            }

            Required(child);
        }

        return !t_unknownReader;
    }

    private static bool AllKnownTypes(IAppender appender, HashSet<IAppender> visited)
    {
        if (!visited.Add(appender))
        {
            return true;
        }

        if (!IsKnownType(appender) || appender is AdoNetAppender)
        {
            return false;
        }

        if (appender is IAppenderAttachable parent)
        {
            foreach (IAppender child in parent.Appenders)
            {
                if (!AllKnownTypes(child, visited))
                {
                    return false;
                }
            }
        }

        return true;
    }

    /// <summary>Whether <paramref name="appender"/> is log4net's or this library's, whose reads fix=Auto knows.</summary>
    public static bool IsKnownType(IAppender appender)
    {
        System.Reflection.Assembly assembly = appender.GetType().Assembly;
        return assembly == typeof(IAppender).Assembly || assembly == typeof(FixResolver).Assembly;
    }

    /// <summary>The fields <paramref name="appender"/> (and any appender nested under it) reads from an event.</summary>
    public static FixFlags Required(IAppender appender) => Required(appender, new HashSet<IAppender>());

    private static FixFlags Required(IAppender appender, HashSet<IAppender> visited)
    {
        if (!visited.Add(appender))
        {
            return FixFlags.None;
        }

        FixFlags needs = FixFlags.None;
        ILayout? layout = (appender as AppenderSkeleton)?.Layout;
        if (layout != null)
        {
            needs |= ForLayout(layout);
        }

        needs |= ForOtherLayouts(appender, layout);
        if (!IsKnownType(appender))
        {
            // A third-party appender (telemetry, a JSON sink) may read any property, whatever its layout says.
            needs |= FixFlags.Properties;
        }

        needs |= ForFiltersAndEvaluators(appender);
        if (appender is IAppenderAttachable parent)
        {
            foreach (IAppender child in parent.Appenders)
            {
                needs |= Required(child, visited);
            }
        }
        else if (layout == null && appender.GetType().Assembly != typeof(FixResolver).Assembly)
        {
            // No layout to inspect: the appender may read anything from the event (MemoryAppender, custom code). This
            // library's own appenders without a layout read no field of it.
            needs |= Unknown;
        }

        return Normalize(needs);
    }

    /// <summary>
    /// The fields a child's filters and a buffering child's evaluators read on the worker: a <c>PropertyFilter</c>
    /// (and <c>NdcFilter</c>, <c>MdcFilter</c>) reads the properties; level, logger and message are always captured;
    /// a filter or evaluator of another type may read anything, so it counts as <see cref="FixFlags.Partial"/>.
    /// </summary>
    private static FixFlags ForFiltersAndEvaluators(IAppender appender)
    {
        FixFlags needs = FixFlags.None;
        if (appender is AppenderSkeleton skeleton)
        {
            for (IFilter? filter = skeleton.FilterHead; filter != null; filter = filter.Next)
            {
                needs |= filter switch
                {
                    PropertyFilter _ => FixFlags.Properties,
                    DenyAllFilter _ or LevelMatchFilter _ or LevelRangeFilter _ or LoggerMatchFilter _ => FixFlags.None,
                    StringMatchFilter _ => FixFlags.Message,
                    _ => Unknown,
                };
            }
        }

        if (appender is BufferingAppenderSkeleton buffering)
        {
            needs |= ForEvaluator(buffering.Evaluator) | ForEvaluator(buffering.LossyEvaluator);
        }

        return needs;
    }

    private static FixFlags ForEvaluator(ITriggeringEventEvaluator? evaluator) => evaluator switch
    {
        null or LevelEvaluator _ => FixFlags.None,
        ExceptionEvaluator _ => FixFlags.Exception,
        _ => Unknown,
    };

    /// <summary>The fields the layouts on an appender's other settings read: log4net's own appenders keep layouts there
    /// too (<c>TraceAppender.Category</c>, the syslog <c>Identity</c>, the ADO.NET parameters).</summary>
    private static FixFlags ForOtherLayouts(IAppender appender, ILayout? mainLayout)
    {
        FixFlags needs = FixFlags.None;
        foreach (PropertyInfo property in appender.GetType().GetProperties(BindingFlags.Public | BindingFlags.Instance))
        {
            bool layoutTyped = typeof(ILayout).IsAssignableFrom(property.PropertyType) || typeof(IRawLayout).IsAssignableFrom(property.PropertyType);
            if (!layoutTyped || property.GetMethod?.IsPublic != true || property.GetIndexParameters().Length > 0)
            {
                continue;
            }

            object? value;
            try
            {
                value = property.GetValue(appender);
            }
            catch (TargetInvocationException)
            {
                needs |= Unknown; // a getter that throws: what it would hold is unknown
                continue;
            }

            needs |= value switch
            {
                ILayout other when !ReferenceEquals(other, mainLayout) => ForLayout(other),
                IRawLayout raw => ForRawLayout(raw),
                _ => FixFlags.None,
            };
        }

        if (appender is AdoNetAppender ado)
        {
            needs |= ForParameters(HiddenFields.AdoNetParameters(ado));
        }

        return needs;
    }

    /// <summary>The fields an <see cref="AdoNetAppender"/>'s parameters read; their list is not public.</summary>
    private static FixFlags ForParameters(object? parameters)
    {
        if (parameters is not IEnumerable list)
        {
            return Unknown;
        }

        FixFlags needs = FixFlags.None;
        foreach (object? parameter in list)
        {
            needs |= parameter is AdoNetAppenderParameter { Layout: IRawLayout raw } ? ForRawLayout(raw) : Unknown;
        }

        return needs;
    }

    /// <summary>The fields a raw layout reads.</summary>
    public static FixFlags ForRawLayout(IRawLayout layout)
    {
        Type type = layout.GetType();
        if (type == typeof(Layout2RawLayoutAdapter))
        {
            ILayout? inner = HiddenFields.AdaptedLayout((Layout2RawLayoutAdapter)layout);
            return inner != null ? ForLayout(inner) : Unknown;
        }

        if (type == typeof(RawPropertyLayout))
        {
            return FixFlags.Properties;
        }

        // The time stamp is set when the event is created.
        return type == typeof(RawTimeStampLayout) || type == typeof(RawUtcTimeStampLayout) ? FixFlags.None : Unknown;
    }

    /// <summary>The fields a layout reads.</summary>
    public static FixFlags ForLayout(ILayout layout)
    {
        switch (layout)
        {
            case PatternLayout pattern:
                FixFlags needs = ForPattern(pattern);
                bool plain = pattern.GetType() == typeof(PatternLayout) || pattern.GetType() == typeof(DynamicPatternLayout);
                if (!plain && (needs & FixFlags.LocationInfo) != 0)
                {
                    NoteLocation(LocationUse.Everything, pattern.GetType().Name);
                }

                return plain ? needs : needs | Unknown;
            case SimpleLayout _:
            case ExceptionLayout _:
                return FixFlags.Message | FixFlags.Exception;
            case XmlLayoutBase xml:
                if (xml.LocationInfo)
                {
                    NoteLocation(LocationUse.Everything, xml.GetType().Name + " locationInfo=true");
                }

                return Unknown | FixFlags.UserName | FixFlags.Identity | (xml.LocationInfo ? FixFlags.LocationInfo : FixFlags.None);
            default:
                return Unknown;
        }
    }

    /// <summary>The fields a pattern layout's converters read. A converter registered on the layout, or one that is not
    /// log4net's own, counts as <see cref="FixFlags.Partial"/> (plus what its type needs, when it is log4net's).</summary>
    public static FixFlags ForPattern(PatternLayout layout)
    {
        if (string.IsNullOrEmpty(layout.ConversionPattern))
        {
            return FixFlags.None;
        }

        FixFlags needs = FixFlags.None;
        var inspector = new PatternInspector();
        var instanceTypes = new HashSet<Type>();
        if (HiddenFields.InstanceConverters(layout) is IEnumerable<KeyValuePair<string, ConverterInfo>> registry)
        {
            foreach (KeyValuePair<string, ConverterInfo> entry in registry)
            {
                inspector.AddConverter(entry.Value);
                if (entry.Value.Type != null)
                {
                    instanceTypes.Add(entry.Value.Type);
                }
            }
        }
        else
        {
            needs |= Unknown; // the layout's own converters cannot be seen
        }

        for (PatternConverter? converter = inspector.Parse(layout.ConversionPattern); converter != null; converter = converter.Next)
        {
            Type type = converter.GetType();
            if (type.Assembly == Log4net && LocationConverters.TryGetValue(type.Name, out (LocationUse Use, string Converter) location))
            {
                NoteLocation(instanceTypes.Contains(type) ? LocationUse.Everything : location.Use, location.Converter);
            }

            needs |= (Known(type) ?? Unknown) | (instanceTypes.Contains(type) ? Unknown : FixFlags.None);
        }

        return needs;
    }

    /// <summary>What one of log4net's own converter types needs; null for any other type.</summary>
    private static FixFlags? Known(Type type) =>
        type.Assembly == Log4net && ConverterNeeds.TryGetValue(type.Name, out FixFlags flags) ? flags : null;

    /// <summary>Reaches the protected parser of <see cref="PatternLayout"/>, which knows the global converters and those
    /// added to this instance.</summary>
    private sealed class PatternInspector : PatternLayout
    {
        public PatternConverter? Parse(string pattern) => CreatePatternParser(pattern).Parse();
    }
}
