using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using log4net.Util;

namespace LowLatencyLog.Log4netInternals;

/// <summary>
/// Every private member of log4net the library reads or writes, whether this log4net has it, and what the library does
/// instead when it does not. The members are log4net 3.5.0's; a later log4net may rename them.
/// </summary>
internal static class PrivateMembers
{
    /// <summary>One private member (or group) and its fallback.</summary>
    internal sealed class Accessor
    {
        public Accessor(string member, bool usedInThisBuild, Func<bool> resolved, string fallback)
        {
            Member = member;
            UsedInThisBuild = usedInThisBuild;
            ResolvedCheck = resolved;
            Fallback = fallback;
        }

        public string Member { get; }

        /// <summary>False where this build never reads the member (the netstandard2.0 build calls the getters).</summary>
        public bool UsedInThisBuild { get; }

        public bool Resolved => ResolvedCheck();

        public string Fallback { get; }

        private Func<bool> ResolvedCheck { get; }
    }

    private static int s_reported;

    /// <summary>Every accessor, in the order the library meets them.</summary>
    public static IReadOnlyList<Accessor> All { get; } = new[]
    {
        new Accessor("SystemStringFormat.<provider>P", true, () => EventFields.ReadsFormatProvider,
            "*Format messages are rendered by log4net on the logging thread, into a new string per call"),
        new Accessor("LoggingEvent.<MessageObject>k__BackingField, <ExceptionObject>k__BackingField", true, () => EventFields.SetsObjects,
            "children behind an async appender get the message and exception as text, without their objects"),
        new Accessor("LoggingEvent._data, LoggingEvent._cacheUpdatable", EventFields.ReadsFieldsInThisBuild, () => EventFields.ReadsFields,
            "the domain and thread name are read through log4net's getters, which cache them into the shared event"),
        new Accessor("LoggingEvent._callerStackBoundaryDeclaringType", EventFields.ReadsFieldsInThisBuild, () => EventFields.ReadsLocationBoundary,
            "location is read through log4net's getter: its whole LocationInfo, stack frames included"),
        new Accessor("LoggingEvent._compositeProperties", true, () => EventFields.ReadsCompositeProperties,
            "a sibling that fixes UserName or Identity after the capture may miss them in its properties"),
        new Accessor("PatternLayout._head, PatternLayout._instanceRulesRegistry", true, () => HiddenFields.PatternLayoutReadable,
            "no fast layout (the file appenders render through the layout), and fix=Auto captures Partial for pattern layouts"),
        new Accessor("Layout2RawLayoutAdapter._layout", true, () => HiddenFields.AdapterReadable,
            "fix=Auto captures Partial for adapted layouts"),
        new Accessor("AdoNetAppender.m_parameters", true, () => HiddenFields.AdoNetParametersReadable,
            "fix=Auto captures Partial for AdoNetAppender children"),
        new Accessor("LiteralPatternConverter, NewLinePatternConverter (by name)", true,
            () => Log4netTypes.LiteralPatternConverter != null && Log4netTypes.NewLinePatternConverter != null,
            "no fast layout: pattern layouts render through log4net"),
        new Accessor("log4net.Layout.Pattern's converters the fast layout compiles (by name)", true,
            () => Log4netTypes.Converters.All(c => c.Type != null),
            "a layout with a converter this log4net lacks renders through log4net"),
        new Accessor("RollingFileAppender+UniversalDateTime (by name)", true, () => Log4netTypes.HasUniversalDateTime,
            "file times are read in local time under every date-time strategy"),
    };

    /// <summary>The members this build reads that this log4net does not have, each with its fallback, as one text.</summary>
    public static string? DescribeMissing(IEnumerable<Accessor> accessors)
    {
        Accessor[] missing = accessors.Where(a => a.UsedInThisBuild && !a.Resolved).ToArray();
        return missing.Length == 0
            ? null
            : "this log4net version lacks members LowLatencyLog reads; it works on without them: " +
              string.Join("; ", missing.Select(a => $"{a.Member}: {a.Fallback}")) + ".";
    }

    /// <summary>At the first activation in the process: says (log4net debug) which fallbacks are in use, if any.</summary>
    public static void ReportOnce(Type reporter)
    {
        if (Interlocked.Exchange(ref s_reported, 1) != 0)
        {
            return;
        }

        try
        {
            if (DescribeMissing(All) is { } text)
            {
                LogLog.Debug(reporter, text);
            }
        }
        catch (Exception e)
        {
            // A type initializer that failed: the library reads nothing of log4net's then; never a reason to fail activation.
            LogLog.Debug(reporter, "LowLatencyLog could not check log4net's private members.", e);
        }
    }
}
