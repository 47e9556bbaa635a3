using System;
using System.Collections.Generic;
using System.Globalization;
using System.Reflection;
using System.Threading.Tasks;
using log4net;
using log4net.Core;

// Compiled twice, with the call-site generator (CallShapes.Intercepted) and without it (CallShapes.Plain): the parity
// test runs both and compares what log4net and the async appenders write for every call.
namespace LowLatencyLog.CallShapes;

/// <summary>Every ILog call shape the generator intercepts, and some it leaves to the stack walk.</summary>
public static class Calls
{
    /// <summary>Logs once from each shape, in a fixed order.</summary>
    public static void Run(ILog log)
    {
        EveryOverload(log);
        ExpressionBodied(log);
        MultiLine(log, 1);
        Conditional(log, new Holder(log));
        var instance = new Instance(log);
        instance.Value = 2;
        _ = instance.Value;
        _ = instance[3];
        instance.Changed += Handler;
        instance.Changed -= Handler;
        _ = instance + instance;
        int converted = instance;
        ((IShape)instance).Run(converted);
        Instance.Nested.Run(log);
        new ValueShape(log).Run();
        StaticConstructed.Touch();
        Subclasses(log);
        Walked(log);
    }

    private static void Handler(object? sender, EventArgs e)
    {
    }

    private static void EveryOverload(ILog log)
    {
        var x = new InvalidOperationException("x");
        IFormatProvider provider = CultureInfo.InvariantCulture;
        log.Debug("debug");
        log.Debug("debug exception", x);
        log.DebugFormat("debug {0} {1} {2} {3}", 1, 2, 3, 4);
        log.DebugFormat("debug {0}", 1);
        log.DebugFormat("debug {0} {1}", 1, 2);
        log.DebugFormat("debug {0} {1} {2}", 1, 2, 3);
        log.DebugFormat(provider, "debug provider {0}", 1.5);
        log.Info("info");
        log.Info("info exception", x);
        log.InfoFormat("info {0} {1} {2} {3}", 1, 2, 3, 4);
        log.InfoFormat("info {0}", 1);
        log.InfoFormat("info {0} {1}", 1, 2);
        log.InfoFormat("info {0} {1} {2}", 1, 2, 3);
        log.InfoFormat(provider, "info provider {0}", 1.5);
        log.Warn("warn");
        log.Warn("warn exception", x);
        log.WarnFormat("warn {0} {1} {2} {3}", 1, 2, 3, 4);
        log.WarnFormat("warn {0}", 1);
        log.WarnFormat("warn {0} {1}", 1, 2);
        log.WarnFormat("warn {0} {1} {2}", 1, 2, 3);
        log.WarnFormat(provider, "warn provider {0}", 1.5);
        log.Error("error");
        log.Error("error exception", x);
        log.ErrorFormat("error {0} {1} {2} {3}", 1, 2, 3, 4);
        log.ErrorFormat("error {0}", 1);
        log.ErrorFormat("error {0} {1}", 1, 2);
        log.ErrorFormat("error {0} {1} {2}", 1, 2, 3);
        log.ErrorFormat(provider, "error provider {0}", 1.5);
        log.Fatal("fatal");
        log.Fatal("fatal exception", x);
        log.FatalFormat("fatal {0} {1} {2} {3}", 1, 2, 3, 4);
        log.FatalFormat("fatal {0}", 1);
        log.FatalFormat("fatal {0} {1}", 1, 2);
        log.FatalFormat("fatal {0} {1} {2}", 1, 2, 3);
        log.FatalFormat(provider, "fatal provider {0}", 1.5);
        log.InfoFormat("null args", (object[]?)null);
        log.WarnFormat(null, "null provider {0}", 1);
    }

    private static void ExpressionBodied(ILog log) => log.Info("expression bodied");

    private static void MultiLine(ILog log, int value)
    {
        log.InfoFormat(
            "multi {0} {1}",
            value,
            value + 1);
    }

    private static void Conditional(ILog? log, Holder? holder)
    {
        log?.Info("conditional");
        holder?.Log?.Warn("conditional chain");
        holder?.Log.ErrorFormat("conditional member {0}", 1);
        (log)?.Debug("parenthesized");
    }

    // log4net.Ext.Trace-style extensions and wrappers derived from LogImpl, called through ILog.
    private static void Subclasses(ILog log)
    {
        ILog extended = new ExtendedLog(log.Logger);
        extended.Info("subclass");
        extended.Error("subclass exception", new InvalidOperationException("x"));
        extended.InfoFormat("subclass {0}", 1);
        extended.WarnFormat(CultureInfo.InvariantCulture, "subclass provider {0}", 1);
        ((ExtendedLog)extended).Trace("subclass trace");
        ILog overriding = new OverridingLog(log.Logger);
        overriding.Info("overriding");
        overriding.InfoFormat("overriding {0}", 1);
        ILog decorator = ForwardingLog.Over(log);
        decorator.Info("decorator");
    }

    // Left to the stack walk: the same output either way.
    private static void Walked(ILog log)
    {
        Action lambda = () => log.Info("lambda");
        lambda();
        Local();
        Generic<int>(log);
        Async(log).GetAwaiter().GetResult();
        foreach (int _ in Iterator(log))
        {
        }

        void Local() => log.Info("local function");
    }

    private static void Generic<T>(ILog log) => log.Info("generic " + typeof(T).Name);

    private static async Task Async(ILog log)
    {
        log.Info("async");
        await Task.CompletedTask;
    }

    private static IEnumerable<int> Iterator(ILog log)
    {
        log.Info("iterator");
        yield return 1;
    }

    private static class StaticConstructed
    {
        static StaticConstructed()
        {
            Instance.Shared!.Info("static constructor");
        }

        public static void Touch()
        {
        }
    }
}

public sealed record Holder(ILog Log);

public interface IShape
{
    void Run(int value);
}

/// <summary>Members of every kind.</summary>
public sealed class Instance : IShape
{
    internal static ILog? Shared;
    private readonly ILog _log;

    public Instance(ILog log)
    {
        Shared = log;
        _log = log;
        _log.Info("constructor");
    }

    public int Value
    {
        get
        {
            _log.Info("getter");
            return 0;
        }

        set => _log.InfoFormat("setter {0}", value);
    }

    public int this[int index]
    {
        get
        {
            _log.InfoFormat("indexer {0}", index);
            return index;
        }
    }

    public event EventHandler? Changed
    {
        add => _log.Info("event add");
        remove => _log.Info("event remove");
    }

    public static Instance operator +(Instance a, Instance b)
    {
        a._log.Warn("operator");
        return b;
    }

    public static implicit operator int(Instance instance)
    {
        instance._log.Error("conversion", new InvalidOperationException("x"));
        return 4;
    }

    void IShape.Run(int value) => _log.DebugFormat("explicit {0}", value);

    public static class Nested
    {
        public static void Run(ILog log) => log.FatalFormat("nested {0} {1} {2}", 1, 2, 3);
    }
}

public readonly struct ValueShape
{
    private readonly ILog _log;

    public ValueShape(ILog log) => _log = log;

    public void Run() => _log.Info("struct");
}

/// <summary>As log4net.Ext.Trace's TraceLogImpl: a LogImpl with a level of its own, its ILog methods inherited.</summary>
public sealed class ExtendedLog : LogImpl
{
    public ExtendedLog(ILogger logger)
        : base(logger)
    {
    }

    public void Trace(object message) => Logger.Log(typeof(ExtendedLog), Level.Trace, message, null);
}

/// <summary>A LogImpl that overrides a method: its methods are called, as without interception.</summary>
public sealed class OverridingLog : LogImpl
{
    public OverridingLog(ILogger logger)
        : base(logger)
    {
    }

    public override void Info(object? message) => base.Info("overridden " + message);
}

/// <summary>An ILog that forwards its calls to another (a decorator).</summary>
public class ForwardingLog : DispatchProxy
{
    private ILog? _inner;

    public static ILog Over(ILog inner)
    {
        ILog proxy = Create<ILog, ForwardingLog>();
        ((ForwardingLog)(object)proxy)._inner = inner;
        return proxy;
    }

    // Info(object) only, called directly (reflection's invoker changes after the first call, and so would the caller).
    protected override object? Invoke(MethodInfo? targetMethod, object?[]? args)
    {
        if (targetMethod?.Name != nameof(ILog.Info) || args?.Length != 1)
        {
            throw new NotSupportedException(targetMethod?.Name);
        }

        _inner!.Info(args[0]);
        return null;
    }
}
