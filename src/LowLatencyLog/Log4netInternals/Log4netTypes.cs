using System;
using System.Collections.Generic;
using System.Reflection;
using log4net.Appender;
using log4net.Layout;

namespace LowLatencyLog.Log4netInternals;

/// <summary>
/// The log4net types the library knows by name only (log4net does not expose them): the pattern converters the fast
/// layout compiles, and the date-time strategy whose file times are universal. A name this log4net does not have finds
/// null; <see cref="PrivateMembers"/> says what the library does then.
/// </summary>
internal static class Log4netTypes
{
    private const string UniversalDateTimeName = "log4net.Appender.RollingFileAppender+UniversalDateTime";
    private static readonly Assembly Log4net = typeof(PatternLayout).Assembly;
    private static readonly List<(string Name, Type? Type)> Found = new List<(string Name, Type? Type)>();

    public static readonly Type? LiteralPatternConverter = Find("log4net.Util.PatternStringConverters.LiteralPatternConverter");
    public static readonly Type? NewLinePatternConverter = Find("log4net.Util.PatternStringConverters.NewLinePatternConverter");
    public static readonly Type? DatePatternConverter = Pattern("DatePatternConverter");
    public static readonly Type? UtcDatePatternConverter = Pattern("UtcDatePatternConverter");
    public static readonly Type? LevelPatternConverter = Pattern("LevelPatternConverter");
    public static readonly Type? ThreadPatternConverter = Pattern("ThreadPatternConverter");
    public static readonly Type? AppDomainPatternConverter = Pattern("AppDomainPatternConverter");
    public static readonly Type? MessagePatternConverter = Pattern("MessagePatternConverter");
    public static readonly Type? RelativeTimePatternConverter = Pattern("RelativeTimePatternConverter");
    public static readonly Type? NdcPatternConverter = Pattern("NdcPatternConverter");
    public static readonly Type? LoggerPatternConverter = Pattern("LoggerPatternConverter");
    public static readonly Type? ExceptionPatternConverter = Pattern("ExceptionPatternConverter");
    public static readonly Type? PropertyPatternConverter = Pattern("PropertyPatternConverter");

    /// <summary>Every converter looked up by name, with the type this log4net has for it (null: none).</summary>
    public static IReadOnlyList<(string Name, Type? Type)> Converters => Found;

    /// <summary>Whether this log4net has the nested strategy <see cref="IsUniversalDateTime"/> compares names with.</summary>
    public static bool HasUniversalDateTime => Log4net.GetType(UniversalDateTimeName) != null;

    /// <summary>Whether the strategy is log4net's <c>UniversalDateTime</c> (a nested type it does not expose), under which
    /// log4net reads file times in UTC.</summary>
    public static bool IsUniversalDateTime(RollingFileAppender.IDateTime? strategy) =>
        strategy?.GetType().FullName == UniversalDateTimeName;

    private static Type? Pattern(string name) => Find("log4net.Layout.Pattern." + name);

    private static Type? Find(string name)
    {
        Type? type = Log4net.GetType(name);
        Found.Add((name, type));
        return type;
    }
}
