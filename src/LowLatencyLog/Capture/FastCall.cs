using System;
using System.Globalization;
using log4net.Core;
using log4net.Repository;
using log4net.Util;

namespace LowLatencyLog.Capture;

/// <summary>
/// An intercepted log call on its way straight into the async appenders' slots, without a <see cref="LoggingEvent"/>:
/// what log4net would have put in the event (level, logger, repository, time stamp, message or format with its
/// arguments as passed, exception) and the call site.
/// </summary>
internal readonly struct FastCall
{
    private static readonly object?[] OneNullArgs = { null };

    /// <summary>False when the application turned the fast path off (MSBuild <c>LowLatencyLogFastPath=false</c>, which
    /// sets the runtime switch <c>LowLatencyLog.FastPath</c>); read at each appender's activation.</summary>
    public static bool Enabled => !AppContext.TryGetSwitch("LowLatencyLog.FastPath", out bool on) || on;

    private FastCall(Level level, ILogger logger, KnownCallSite site, string? message, Exception? exception, IFormatProvider? provider, string? format, int argCount, object? arg0, object? arg1, object? arg2, object?[]? args, bool objects)
    {
        Level = level;
        LoggerName = logger.Name;
        Repository = logger.Repository;
        TimeStampUtc = DateTime.UtcNow; // as log4net's LoggingEvent constructor: once, for every appender
        Site = site;
        Message = message;
        Exception = exception;
        Provider = provider;
        Format = format;
        ArgCount = argCount;
        Arg0 = arg0;
        Arg1 = arg1;
        Arg2 = arg2;
        Args = args;
        FormatObject = objects && format != null ? new SystemStringFormat(provider, format, ArgumentArray()) : null;
    }

    public Level Level { get; }

    public string LoggerName { get; }

    public ILoggerRepository? Repository { get; }

    public DateTime TimeStampUtc { get; }

    public KnownCallSite Site { get; }

    /// <summary>A string message (<see cref="Format"/> null).</summary>
    public string? Message { get; }

    public Exception? Exception { get; }

    /// <summary>The provider log4net's <c>SystemStringFormat</c> would get: the invariant culture for <c>*Format</c>,
    /// the caller's (maybe null) for the overloads that take one.</summary>
    public IFormatProvider? Provider { get; }

    /// <summary>A <c>*Format</c> call's format string; null for a string message.</summary>
    public string? Format { get; }

    /// <summary>1 to 3: <see cref="Arg0"/>… hold the arguments; -1: <see cref="Args"/> does.</summary>
    public int ArgCount { get; }

    public object? Arg0 { get; }

    public object? Arg1 { get; }

    public object? Arg2 { get; }

    public object?[]? Args { get; }

    /// <summary>The <c>*Format</c> call's message object, made at the call when a child may read it.</summary>
    public SystemStringFormat? FormatObject { get; }

    /// <summary>Whether the call holds the message object log4net would have passed (a string message is its own).</summary>
    public bool HasMessageObject => Format == null || FormatObject != null;

    /// <summary><c>Debug(string)</c>, <c>Error(string, Exception)</c>, …</summary>
    public static FastCall ForMessage(Level level, ILogger logger, KnownCallSite site, string message, Exception? exception) =>
        new FastCall(level, logger, site, message, exception, null, null, 0, null, null, null, null, objects: false);

    /// <summary><c>*Format(string, object[])</c> and <c>*Format(IFormatProvider, string, object[])</c>;
    /// <paramref name="objects"/>: make the message object too.</summary>
    public static FastCall ForFormat(Level level, ILogger logger, KnownCallSite site, IFormatProvider? provider, string format, object?[]? args, bool objects) =>
        new FastCall(level, logger, site, null, null, provider, format, -1, null, null, null, args ?? OneNullArgs, objects);

    /// <summary><c>*Format(string, object)</c> to <c>*Format(string, object, object, object)</c>.</summary>
    public static FastCall ForFormat(Level level, ILogger logger, KnownCallSite site, string format, int argCount, object? arg0, object? arg1, object? arg2, bool objects) =>
        new FastCall(level, logger, site, null, null, CultureInfo.InvariantCulture, format, argCount, arg0, arg1, arg2, null, objects);

    /// <summary>The arguments as one array (what log4net's <c>SystemStringFormat</c> holds).</summary>
    public object?[] ArgumentArray() => ArgCount switch
    {
        -1 => Args!,
        1 => new[] { Arg0 },
        2 => new[] { Arg0, Arg1 },
        _ => new[] { Arg0, Arg1, Arg2 },
    };

    /// <summary>The message object log4net's <c>LogImpl</c> would have passed.</summary>
    public object? MessageObject() => Format == null ? Message : FormatObject ?? new SystemStringFormat(Provider, Format, ArgumentArray());

    /// <summary>The event log4net would have built, for an appender that cannot take the call directly any more (closed
    /// meanwhile).</summary>
    public LoggingEvent ToLoggingEvent(object? messageObject) =>
        new LoggingEvent(Site.Boundary, Repository, LoggerName, Level, messageObject, Exception);
}
