using System;
using System.Collections.Generic;
using log4net.Appender;
using log4net.Core;

namespace LowLatencyLog.Capture;

// FixResolver, continued: which location converters the children's layouts use.
internal static partial class FixResolver
{
    /// <summary>What the location converters of a child's layouts read, from least to most.</summary>
    [Flags]
    internal enum LocationUse
    {
        None = 0,

        /// <summary><c>%type</c>, <c>%class</c>, <c>%method</c>: the caller's type and method.</summary>
        Method = 1,

        /// <summary><c>%file</c>, <c>%line</c>, <c>%location</c>: also its file and line.</summary>
        FileAndLine = 2,

        /// <summary><c>%stacktrace</c>, <c>%stacktracedetail</c>, an XML layout's location, a layout subclass: log4net's
        /// whole <see cref="LocationInfo"/>, stack frames included.</summary>
        Everything = 4,
    }

    private static readonly Dictionary<string, (LocationUse Use, string Converter)> LocationConverters =
        new Dictionary<string, (LocationUse, string)>
        {
            ["TypeNamePatternConverter"] = (LocationUse.Method, "%type"),
            ["MethodLocationPatternConverter"] = (LocationUse.Method, "%method"),
            ["FileLocationPatternConverter"] = (LocationUse.FileAndLine, "%file"),
            ["LineLocationPatternConverter"] = (LocationUse.FileAndLine, "%line"),
            ["FullLocationPatternConverter"] = (LocationUse.FileAndLine, "%location"),
            ["StackTracePatternConverter"] = (LocationUse.Everything, "%stacktrace"),
            ["StackTraceDetailPatternConverter"] = (LocationUse.Everything, "%stacktracedetail"),
        };

    // What the inspection under way found about location (one activation inspects at a time on a thread).
    [ThreadStatic]
    private static LocationUse t_locationUse;

    [ThreadStatic]
    private static List<string>? t_locationConverters;

    /// <summary>
    /// What the layouts of <paramref name="appender"/> (and of appenders nested under it) read of the caller's location,
    /// and the converters or layouts that read it.
    /// </summary>
    public static (LocationUse Use, string[] Readers) Location(IAppender appender)
    {
        t_locationUse = LocationUse.None;
        t_unknownReader = false;
        t_locationConverters = new List<string>();
        try
        {
            Required(appender);
            if (t_unknownReader || (!IsKnownType(appender) && t_locationUse != LocationUse.None))
            {
                // A layout, filter or appender whose reads are unknown may read the whole location, frames included.
                t_locationUse |= LocationUse.Everything;
            }

            return (t_locationUse, t_locationConverters.ToArray());
        }
        finally
        {
            t_locationConverters = null;
        }
    }

    private static void NoteLocation(LocationUse use, string reader)
    {
        t_locationUse |= use;
        if (t_locationConverters is { } readers && !readers.Contains(reader))
        {
            readers.Add(reader);
        }
    }

    /// <summary>
    /// With location in <paramref name="flags"/>: warns which child's layout makes every call read the stack, and marks
    /// how little of the caller the layouts need (<see cref="CallerLocation"/>), so the logging thread reads only that.
    /// </summary>
    private static FixFlags WithLocationCapture(FixFlags flags, IAppender[] children, Action<string> warn)
    {
        if ((flags & FixFlags.LocationInfo) == 0)
        {
            return flags;
        }

        var use = LocationUse.None;
        foreach (IAppender child in children)
        {
            (LocationUse childUse, string[] readers) = Location(child);
            use |= childUse;
            if (readers.Length > 0)
            {
                warn($"appender [{child.Name}] writes the caller's location " +
                    $"({string.Join(", ", readers)}): every log call then reads the calling thread's stack, the one setting that makes " +
                    "each call cost microseconds (except C# ILog calls the package intercepts at compile time). See the README, \"Caller location\".");
            }
        }

        if (use == LocationUse.None || (use & LocationUse.Everything) != 0)
        {
            return flags; // log4net's own LocationInfo, stack frames included
        }

        return flags | ((use & LocationUse.FileAndLine) != 0 ? CallerLocation.WithFile : CallerLocation.MethodOnly);
    }
}
