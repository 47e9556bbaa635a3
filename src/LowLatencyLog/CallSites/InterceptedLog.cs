using System;
using System.ComponentModel;
using System.Globalization;
using System.Runtime.CompilerServices;
using log4net;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Capture;
using LowLatencyLog.Log4netInternals;

// Block namespaces: the attribute below must be System.Security's, and file-local (so no assembly that sees this one's
// internals meets a second declaration of it).
namespace LowLatencyLog.CallSites
{
    /// <summary>
    /// What the methods the package's source generator writes call: each does what log4net's <see cref="LogImpl"/> method
    /// of the same shape does, with the call site known to the capture while log4net appends the event.
    /// </summary>
    /// <remarks>
    /// <para>log4net is called with the generated type as the boundary of its stack walk, so a layout that walks the stack
    /// (log4net's own appenders, <c>%stacktrace</c>) finds the application's method, as without interception. The methods
    /// (and the generated ones) carry <c>DynamicSecurityMethod</c>: the JIT then neither inlines the application's method
    /// into its caller nor turns the call into a tail call, so the frames log4net walks are the source's.</para>
    /// <para>A subclass of <see cref="LogImpl"/> is served as <see cref="LogImpl"/> is for the methods it inherits (the
    /// inherited method would pass <see cref="LogImpl"/> as the boundary, and log4net would find this class as the
    /// caller). Any other <see cref="ILog"/>, and a method a subclass overrides, get their own method called.</para>
    /// </remarks>
    [EditorBrowsable(EditorBrowsableState.Never)]
    public static class InterceptedLog
    {
        private static readonly object?[] OneNullArgs = { null };

        /// <summary>Generated code: what log4net's <c>Debug(object)</c>, <c>Info(object)</c>, … at a call site.</summary>
        [System.Security.DynamicSecurityMethod]
        public static void Message(ILog log, CallSite site, object? message)
        {
            Level? level = LogImplLevels.Of(log, site.Kind, LogMethod.Message);
            if (level != null)
            {
                WriteMessage(log.Logger, site, level, message, null);

                return;
            }

            // Not log4net's own LogImpl: its method, as without interception.
            switch (site.Kind)
            {
                case LevelKind.Debug:
                    log.Debug(message);
                    break;
                case LevelKind.Info:
                    log.Info(message);
                    break;
                case LevelKind.Warn:
                    log.Warn(message);
                    break;
                case LevelKind.Error:
                    log.Error(message);
                    break;
                default:
                    log.Fatal(message);
                    break;
            }
        }

        /// <summary>Generated code: what log4net's <c>Debug(object, Exception)</c>, … at a call site.</summary>
        [System.Security.DynamicSecurityMethod]
        public static void MessageException(ILog log, CallSite site, object? message, Exception? exception)
        {
            Level? level = LogImplLevels.Of(log, site.Kind, LogMethod.MessageException);
            if (level != null)
            {
                WriteMessage(log.Logger, site, level, message, exception);

                return;
            }

            // Not log4net's own LogImpl: its method, as without interception.
            switch (site.Kind)
            {
                case LevelKind.Debug:
                    log.Debug(message, exception);
                    break;
                case LevelKind.Info:
                    log.Info(message, exception);
                    break;
                case LevelKind.Warn:
                    log.Warn(message, exception);
                    break;
                case LevelKind.Error:
                    log.Error(message, exception);
                    break;
                default:
                    log.Fatal(message, exception);
                    break;
            }
        }

        /// <summary>Generated code: what log4net's <c>DebugFormat(string, params object[])</c>, … at a call site.</summary>
        [System.Security.DynamicSecurityMethod]
        public static void Format(ILog log, CallSite site, string format, object?[]? args)
        {
            Level? level = LogImplLevels.Of(log, site.Kind, LogMethod.Format);
            if (level != null)
            {
                ILogger logger = log.Logger;
                if (logger.IsEnabledFor(level))
                {
                    if (Fast(logger, site, format, out CallerLocation? caller, out bool objects) is { } route)
                    {
                        route.Write(FastCall.ForFormat(level, logger, site.Known, CultureInfo.InvariantCulture, format, args, objects), caller);
                        return;
                    }

                    Write(logger, site, level, new SystemStringFormat(CultureInfo.InvariantCulture, format, args ?? OneNullArgs), null);
                }

                return;
            }

            // Not log4net's own LogImpl: its method, as without interception.
            switch (site.Kind)
            {
                case LevelKind.Debug:
                    log.DebugFormat(format, args);
                    break;
                case LevelKind.Info:
                    log.InfoFormat(format, args);
                    break;
                case LevelKind.Warn:
                    log.WarnFormat(format, args);
                    break;
                case LevelKind.Error:
                    log.ErrorFormat(format, args);
                    break;
                default:
                    log.FatalFormat(format, args);
                    break;
            }
        }

        /// <summary>Generated code: what log4net's <c>DebugFormat(string, object)</c>, … at a call site.</summary>
        [System.Security.DynamicSecurityMethod]
        public static void Format1(ILog log, CallSite site, string format, object? arg0)
        {
            Level? level = LogImplLevels.Of(log, site.Kind, LogMethod.Format1);
            if (level != null)
            {
                ILogger logger = log.Logger;
                if (logger.IsEnabledFor(level))
                {
                    if (Fast(logger, site, format, out CallerLocation? caller, out bool objects) is { } route)
                    {
                        route.Write(FastCall.ForFormat(level, logger, site.Known, format, 1, arg0, null, null, objects), caller);
                        return;
                    }

                    Write(logger, site, level, new SystemStringFormat(CultureInfo.InvariantCulture, format, new[] { arg0 }), null);
                }

                return;
            }

            // Not log4net's own LogImpl: its method, as without interception.
            switch (site.Kind)
            {
                case LevelKind.Debug:
                    log.DebugFormat(format, arg0);
                    break;
                case LevelKind.Info:
                    log.InfoFormat(format, arg0);
                    break;
                case LevelKind.Warn:
                    log.WarnFormat(format, arg0);
                    break;
                case LevelKind.Error:
                    log.ErrorFormat(format, arg0);
                    break;
                default:
                    log.FatalFormat(format, arg0);
                    break;
            }
        }

        /// <summary>Generated code: what log4net's <c>DebugFormat(string, object, object)</c>, … at a call site.</summary>
        [System.Security.DynamicSecurityMethod]
        public static void Format2(ILog log, CallSite site, string format, object? arg0, object? arg1)
        {
            Level? level = LogImplLevels.Of(log, site.Kind, LogMethod.Format2);
            if (level != null)
            {
                ILogger logger = log.Logger;
                if (logger.IsEnabledFor(level))
                {
                    if (Fast(logger, site, format, out CallerLocation? caller, out bool objects) is { } route)
                    {
                        route.Write(FastCall.ForFormat(level, logger, site.Known, format, 2, arg0, arg1, null, objects), caller);
                        return;
                    }

                    Write(logger, site, level, new SystemStringFormat(CultureInfo.InvariantCulture, format, new[] { arg0, arg1 }), null);
                }

                return;
            }

            // Not log4net's own LogImpl: its method, as without interception.
            switch (site.Kind)
            {
                case LevelKind.Debug:
                    log.DebugFormat(format, arg0, arg1);
                    break;
                case LevelKind.Info:
                    log.InfoFormat(format, arg0, arg1);
                    break;
                case LevelKind.Warn:
                    log.WarnFormat(format, arg0, arg1);
                    break;
                case LevelKind.Error:
                    log.ErrorFormat(format, arg0, arg1);
                    break;
                default:
                    log.FatalFormat(format, arg0, arg1);
                    break;
            }
        }

        /// <summary>Generated code: what log4net's <c>DebugFormat(string, object, object, object)</c>, … at a call site.</summary>
        [System.Security.DynamicSecurityMethod]
        public static void Format3(ILog log, CallSite site, string format, object? arg0, object? arg1, object? arg2)
        {
            Level? level = LogImplLevels.Of(log, site.Kind, LogMethod.Format3);
            if (level != null)
            {
                ILogger logger = log.Logger;
                if (logger.IsEnabledFor(level))
                {
                    if (Fast(logger, site, format, out CallerLocation? caller, out bool objects) is { } route)
                    {
                        route.Write(FastCall.ForFormat(level, logger, site.Known, format, 3, arg0, arg1, arg2, objects), caller);
                        return;
                    }

                    Write(logger, site, level, new SystemStringFormat(CultureInfo.InvariantCulture, format, new[] { arg0, arg1, arg2 }), null);
                }

                return;
            }

            // Not log4net's own LogImpl: its method, as without interception.
            switch (site.Kind)
            {
                case LevelKind.Debug:
                    log.DebugFormat(format, arg0, arg1, arg2);
                    break;
                case LevelKind.Info:
                    log.InfoFormat(format, arg0, arg1, arg2);
                    break;
                case LevelKind.Warn:
                    log.WarnFormat(format, arg0, arg1, arg2);
                    break;
                case LevelKind.Error:
                    log.ErrorFormat(format, arg0, arg1, arg2);
                    break;
                default:
                    log.FatalFormat(format, arg0, arg1, arg2);
                    break;
            }
        }

        /// <summary>Generated code: what log4net's <c>DebugFormat(IFormatProvider, string, params object[])</c>, … at a call site.</summary>
        [System.Security.DynamicSecurityMethod]
        public static void FormatProvider(ILog log, CallSite site, IFormatProvider? provider, string format, object?[]? args)
        {
            Level? level = LogImplLevels.Of(log, site.Kind, LogMethod.FormatProvider);
            if (level != null)
            {
                ILogger logger = log.Logger;
                if (logger.IsEnabledFor(level))
                {
                    if (Fast(logger, site, format, out CallerLocation? caller, out bool objects) is { } route)
                    {
                        route.Write(FastCall.ForFormat(level, logger, site.Known, provider, format, args, objects), caller);
                        return;
                    }

                    Write(logger, site, level, new SystemStringFormat(provider, format, args ?? OneNullArgs), null);
                }

                return;
            }

            // Not log4net's own LogImpl: its method, as without interception.
            switch (site.Kind)
            {
                case LevelKind.Debug:
                    log.DebugFormat(provider, format, args);
                    break;
                case LevelKind.Info:
                    log.InfoFormat(provider, format, args);
                    break;
                case LevelKind.Warn:
                    log.WarnFormat(provider, format, args);
                    break;
                case LevelKind.Error:
                    log.ErrorFormat(provider, format, args);
                    break;
                default:
                    log.FatalFormat(provider, format, args);
                    break;
            }
        }
        /// <summary>A message object's call: straight into the slots when it is a string and the route allows, else
        /// through log4net (which checks the level itself).</summary>
        private static void WriteMessage(ILogger logger, CallSite site, Level level, object? message, Exception? exception)
        {
            if (message is string text && logger.IsEnabledFor(level) && FastRoute.Of(logger, site, out CallerLocation? caller, out _) is { } route)
            {
                route.Write(FastCall.ForMessage(level, logger, site.Known, text, exception), caller);
                return;
            }

            Write(logger, site, level, message, exception);
        }

        /// <summary>Whether a <c>*Format</c> call goes straight into the slots: a format to format, a route that
        /// allows it, and log4net's default rendering of its <c>SystemStringFormat</c>.</summary>
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        private static FastRoute? Fast(ILogger logger, CallSite site, string? format, out CallerLocation? caller, out bool objects)
        {
            caller = null;
            objects = false;
            FastRoute? route = format != null ? FastRoute.Of(logger, site, out caller, out objects) : null;
            return route != null && EventFields.RendersByDefault(logger.Repository) ? route : null;
        }

        private static void Write(ILogger logger, CallSite site, Level level, object? message, Exception? exception)
        {
            KnownCallSite.Scope scope = KnownCallSite.Enter(site.Known, message);
            try
            {
                logger.Log(site.Boundary, level, message, exception);
            }
            finally
            {
                scope.Exit();
            }
        }
    }
}

namespace System.Security
{
    /// <summary>
    /// Marks a method whose frame must stay on the stack. The compiler turns it into the method's <c>RequireSecObject</c>
    /// flag, and the JIT then inlines no caller of the method into its own caller and makes no tail call to it (the
    /// runtime's rule for methods that look for their caller); the runtime's own attribute is not public.
    /// </summary>
    [AttributeUsage(AttributeTargets.Method)]
    file sealed class DynamicSecurityMethodAttribute : Attribute
    {
    }
}
