using System;
using System.Reflection;
using System.Runtime.CompilerServices;
using log4net;
using log4net.Core;

namespace LowLatencyLog.Log4netInternals;

/// <summary>
/// The levels log4net's <see cref="LogImpl"/> logs at: its repository's levels of those names, which it reloads when the
/// configuration changes. Read from the instance, so an intercepted call logs at the level the call would have.
/// </summary>
internal static class LogImplLevels
{
    /// <summary>The level <paramref name="log"/>'s method <paramref name="method"/> logs at, or null when that method is
    /// not log4net's <see cref="LogImpl"/>'s (an <see cref="ILog"/> of another type, or a subclass that overrides it,
    /// which then gets its own method called) or the levels cannot be read.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Level? Of(ILog log, LevelKind kind, LogMethod method)
    {
        if (!Readable || (log.GetType() != typeof(LogImpl) && !(log is LogImpl && Inherits(log.GetType(), kind, method))))
        {
            return null;
        }

        return Read((LogImpl)log, kind);
    }

    // Per LogImpl subclass (log4net.Ext.Trace's, an application's wrapper): which of ILog's logging methods it inherits,
    // one bit per level and method, so its calls are served as LogImpl's are (its inherited method would pass LogImpl as
    // the boundary of log4net's stack walk, and log4net would then report InterceptedLog as the caller).
    private static readonly ConditionalWeakTable<Type, object> Subclasses = new ConditionalWeakTable<Type, object>();
    private static readonly ConditionalWeakTable<Type, object>.CreateValueCallback Inspect = InheritedMethods;

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool Inherits(Type type, LevelKind kind, LogMethod method) =>
        ((long)Subclasses.GetValue(type, Inspect) & Bit(kind, method)) != 0;

    private static long Bit(LevelKind kind, LogMethod method) => 1L << ((int)kind * LogMethods.Count + (int)method);

    private static object InheritedMethods(Type type)
    {
        try
        {
            if (!IsLogImpls(type.GetInterfaceMap(typeof(ILoggerWrapper)).TargetMethods[0]))
            {
                return 0L; // its own Logger
            }

            InterfaceMapping map = type.GetInterfaceMap(typeof(ILog));
            var enabled = new bool[5];
            for (int i = 0; i < map.InterfaceMethods.Length; i++)
            {
                string name = map.InterfaceMethods[i].Name;
                if (name.StartsWith("get_Is", StringComparison.Ordinal) && Kind(name.Substring(6, name.Length - 6 - "Enabled".Length)) is { } kind)
                {
                    enabled[(int)kind] = IsLogImpls(map.TargetMethods[i]);
                }
            }

            long inherited = 0;
            for (int i = 0; i < map.InterfaceMethods.Length; i++)
            {
                MethodInfo contract = map.InterfaceMethods[i];
                bool format = contract.Name.EndsWith("Format", StringComparison.Ordinal);
                if (Kind(format ? contract.Name.Substring(0, contract.Name.Length - 6) : contract.Name) is { } kind &&
                    Method(contract.GetParameters(), format) is { } method &&
                    IsLogImpls(map.TargetMethods[i]) && (!format || enabled[(int)kind]))
                {
                    inherited |= Bit(kind, method);
                }
            }

            return inherited;
        }
        catch (Exception)
        {
            return 0L; // its own methods, as without interception
        }

        static bool IsLogImpls(MethodInfo target) => target.DeclaringType is { } declaring && declaring.IsAssignableFrom(typeof(LogImpl));

        static LevelKind? Kind(string level) => level switch
        {
            "Debug" => LevelKind.Debug,
            "Info" => LevelKind.Info,
            "Warn" => LevelKind.Warn,
            "Error" => LevelKind.Error,
            "Fatal" => LevelKind.Fatal,
            _ => null,
        };

        static LogMethod? Method(ParameterInfo[] p, bool format)
        {
            if (!format)
            {
                return p.Length == 1 ? LogMethod.Message : p.Length == 2 ? LogMethod.MessageException : null;
            }

            if (p.Length > 0 && p[0].ParameterType == typeof(IFormatProvider))
            {
                return LogMethod.FormatProvider;
            }

            return p.Length switch
            {
                2 when p[1].ParameterType == typeof(object[]) => LogMethod.Format,
                2 => LogMethod.Format1,
                3 => LogMethod.Format2,
                4 => LogMethod.Format3,
                _ => null,
            };
        }
    }

#if NET8_0_OR_GREATER
    private static Level? Read(LogImpl log, LevelKind kind) => kind switch
    {
        LevelKind.Debug => LevelDebug(log),
        LevelKind.Info => LevelInfo(log),
        LevelKind.Warn => LevelWarn(log),
        LevelKind.Error => LevelError(log),
        _ => LevelFatal(log),
    };

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_levelDebug")]
    private static extern ref Level? LevelDebug(LogImpl log);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_levelInfo")]
    private static extern ref Level? LevelInfo(LogImpl log);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_levelWarn")]
    private static extern ref Level? LevelWarn(LogImpl log);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_levelError")]
    private static extern ref Level? LevelError(LogImpl log);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_levelFatal")]
    private static extern ref Level? LevelFatal(LogImpl log);
#else
    private static readonly Func<LogImpl, Level?>[] Getters =
    {
        Getter("_levelDebug"), Getter("_levelInfo"), Getter("_levelWarn"), Getter("_levelError"), Getter("_levelFatal"),
    };

    private static Level? Read(LogImpl log, LevelKind kind) => Getters[(int)kind](log);

    private static Func<LogImpl, Level?> Getter(string name)
    {
        FieldInfo? field = typeof(LogImpl).GetField(name, BindingFlags.Instance | BindingFlags.NonPublic);
        if (field == null || field.FieldType != typeof(Level))
        {
            return _ => null;
        }

        System.Linq.Expressions.ParameterExpression l = System.Linq.Expressions.Expression.Parameter(typeof(LogImpl), "l");
        return System.Linq.Expressions.Expression.Lambda<Func<LogImpl, Level?>>(System.Linq.Expressions.Expression.Field(l, field), l).Compile();
    }
#endif

    private static readonly bool Readable = Probe();

    private static bool Probe()
    {
        try
        {
            var repository = new log4net.Repository.Hierarchy.Hierarchy();
            var log = new LogImpl(repository.GetLogger("probe"));
            foreach (LevelKind kind in new[] { LevelKind.Debug, LevelKind.Info, LevelKind.Warn, LevelKind.Error, LevelKind.Fatal })
            {
                if (Read(log, kind) is not { } level || LevelKinds.Of(level) != kind)
                {
                    return false;
                }
            }

            return true;
        }
        catch (Exception)
        {
            return false; // another log4net: every call goes through its own method
        }
    }
}

/// <summary>The logging methods <c>ILog</c> has for each level (<c>Info(object)</c>, <c>Info(object, Exception)</c>,
/// <c>InfoFormat(string, params object[])</c>, <c>InfoFormat(string, object)</c>, …, <c>InfoFormat(IFormatProvider,
/// string, params object[])</c>).</summary>
internal enum LogMethod
{
    Message,
    MessageException,
    Format,
    Format1,
    Format2,
    Format3,
    FormatProvider,
}

internal static class LogMethods
{
    public const int Count = 7;
}

/// <summary>The five levels of <c>ILog</c>'s logging methods.</summary>
internal enum LevelKind
{
    Debug,
    Info,
    Warn,
    Error,
    Fatal,
}

internal static class LevelKinds
{
    public static LevelKind Of(Level level)
    {
        if (level == Level.Debug)
        {
            return LevelKind.Debug;
        }

        if (level == Level.Info)
        {
            return LevelKind.Info;
        }

        if (level == Level.Warn)
        {
            return LevelKind.Warn;
        }

        if (level == Level.Error)
        {
            return LevelKind.Error;
        }

        if (level == Level.Fatal)
        {
            return LevelKind.Fatal;
        }

        throw new ArgumentException($"Not one of ILog's levels: {level}.", nameof(level));
    }
}
