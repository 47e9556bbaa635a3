using System;
#if !NET8_0_OR_GREATER
using System.Reflection;
#endif
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
    /// <summary>The level <paramref name="log"/>'s method logs at, or null when <paramref name="log"/> is not log4net's
    /// own <see cref="LogImpl"/> (a subclass may override the method) or its levels cannot be read.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Level? Of(ILog log, LevelKind kind)
    {
        if (!Readable || log.GetType() != typeof(LogImpl))
        {
            return null;
        }

        return Read((LogImpl)log, kind);
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
