using System.Runtime.CompilerServices;
using log4net.Core;
using LowLatencyLog.Capture;
using LowLatencyLog.Log4netInternals;

namespace LowLatencyLog.CallSites;

/// <summary>
/// Where an intercepted call's event goes when log4net is left out (SPEC 22): the appenders log4net would call for the
/// logger, when every one of them is an async appender of this package that takes calls directly right now. Kept per
/// call site (its logger rarely changes) and checked on every call, so it follows every change log4net allows.
/// </summary>
internal sealed class FastRoute
{
    private static readonly IFastTarget[] None = new IFastTarget[0];

    private readonly ILogger _logger;
    private readonly LoggerRoute? _route;
    private readonly IFastTarget[] _targets;

    private FastRoute(ILogger logger, LoggerRoute? route)
    {
        _logger = logger;
        _route = route;
        _targets = Targets(route);
    }

    /// <summary>
    /// The route of <paramref name="logger"/>'s call at <paramref name="site"/> when it can be taken without log4net
    /// now, with the caller to capture (null when no appender captures the location); otherwise null, and the call
    /// goes through log4net. The level was checked by log4net already. <c>objects</c>: some appender's children may read
    /// the message and exception objects.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static FastRoute? Of(ILogger logger, CallSite site, out CallerLocation? caller, out bool objects)
    {
        caller = null;
        objects = false;
        FastRoute? route = site.Route;
        if (route == null || !ReferenceEquals(route._logger, logger) || !route.IsCurrent())
        {
            route = Resolve(logger, site);
        }

        return route._targets.Length != 0 && route.TakesFastCalls(site, out caller, out objects) ? route : null;
    }

    /// <summary>Gives the call to each appender, in log4net's order.</summary>
    public void Write(in FastCall call, CallerLocation? caller)
    {
        foreach (IFastTarget target in _targets)
        {
            target.AppendFast(in call, caller);
        }
    }

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private bool IsCurrent() => _route == null || _route.IsCurrent();

    // Each logger's current route: a call site used with several loggers (a helper taking the ILog) finds it here instead
    // of walking the logger chain again on every call.
    private static readonly ConditionalWeakTable<ILogger, Holder> ByLogger = new ConditionalWeakTable<ILogger, Holder>();
    private static readonly ConditionalWeakTable<ILogger, Holder>.CreateValueCallback NewHolder = _ => new Holder();

    private sealed class Holder
    {
        public volatile FastRoute? Route;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static FastRoute Resolve(ILogger logger, CallSite site)
    {
        Holder holder = ByLogger.GetValue(logger, NewHolder);
        FastRoute? route = holder.Route;
        if (route == null || !route.IsCurrent())
        {
            route = new FastRoute(logger, LoggerRoute.Walk(logger));
            holder.Route = route; // any thread: a race stores equal answers
        }

        site.Route = route;
        return route;
    }

    private static IFastTarget[] Targets(LoggerRoute? route)
    {
        if (route == null || route.Appenders.Length == 0)
        {
            return None; // no appender: log4net warns about it, once
        }

        var targets = new IFastTarget[route.Appenders.Length];
        for (int i = 0; i < targets.Length; i++)
        {
            if (route.Appenders[i] is not IFastTarget target)
            {
                return None; // an appender that needs log4net's event
            }

            targets[i] = target;
        }

        return targets;
    }

    private bool TakesFastCalls(CallSite site, out CallerLocation? caller, out bool objects)
    {
        caller = null;
        objects = false;
        FixFlags location = 0;
        foreach (IFastTarget target in _targets)
        {
            if (!target.TakesFastCalls(out FixFlags capture, out bool needsObjects))
            {
                return false;
            }

            location |= capture & (FixFlags.LocationInfo | CallerLocation.WithFile);
            objects |= needsObjects;
        }

        if ((location & FixFlags.LocationInfo) != 0)
        {
            // Described at compile time and confirmed by the runtime's frame, else log4net's path walks the stack.
            caller = site.Known.ConfirmedCaller(withFile: (location & CallerLocation.WithFile) != 0);
            return caller != null;
        }

        return true;
    }
}
