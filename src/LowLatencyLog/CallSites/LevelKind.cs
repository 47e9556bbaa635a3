using System;
using log4net.Core;

namespace LowLatencyLog.CallSites;

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
