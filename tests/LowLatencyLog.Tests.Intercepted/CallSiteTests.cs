using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Threading;
using log4net;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using log4net.Repository.Hierarchy;
using LowLatencyLog.Appender;
using LowLatencyLog.CallSites;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Intercepted;

/// <summary>
/// The ILog calls of this assembly are intercepted by the package's generator: what the async appenders write from
/// the call sites it describes equals what log4net's own stack walk writes, and costs the logging thread no walk.
/// </summary>
[NonParallelizable]
public sealed class InterceptionTests
{
    private const string Pattern = "%C|%M|%L|%F|%message%n";
    private readonly PrivateRepositories _repositories = new PrivateRepositories("callsite-");

    [TearDown]
    public void ShutDownRepositories() => _repositories.ShutDownAll();

    [Test]
    public void TheBuildInterceptsTheILogCalls()
    {
        Type[] generated = typeof(InterceptionTests).Assembly.GetTypes().Where(t => t.Namespace == "LowLatencyLog.Generated" && t.IsAbstract && t.IsSealed).ToArray();
        Assert.That(generated, Has.Length.EqualTo(1), "one generated interceptor type");
        MethodInfo[] interceptors = generated[0].GetMethods(BindingFlags.Public | BindingFlags.Static);
        Assert.That(interceptors, Has.Length.EqualTo(GeneratedSite.All().Length));
        Assert.That(interceptors, Has.Length.GreaterThan(20));
        Assert.That(interceptors.All(m => (m.Attributes & MethodAttributes.RequireSecObject) != 0), "every interceptor keeps its caller's frame");
        MethodInfo[] forwarders = typeof(InterceptedLog).GetMethods(BindingFlags.Public | BindingFlags.Static);
        Assert.That(forwarders, Has.Length.EqualTo(7));
        Assert.That(forwarders.All(m => (m.Attributes & MethodAttributes.RequireSecObject) != 0), "no tail call from an interceptor to them");
    }

    [TestCaseSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.TypeNames))]
    public void EveryKindOfMethod_WritesWhatLog4netWrites_FromTheDescribedCallSite(string kind)
    {
        var (logger, log) = _repositories.NewLogger("shapes");
        var child = new Log4netChild(Pattern);
        logger.AddAppender(Async(kind, child.Appender));
        var sibling = new StringAppender(Pattern);
        logger.AddAppender(sibling);

        Shapes.All(log);
        Assert.That(((IFlushable)logger.Appenders[0]).Flush(10_000), Is.True);

        Assert.That(child.Text, Is.EqualTo(sibling.Text));
        string typeName = typeof(Shapes).FullName!;
        // (".cctor" too, in the first case only: a static constructor runs once.)
        foreach (string method in new[] { ".ctor", "set_Value", "get_Item", "add_Changed", "op_Addition", "op_Implicit", "Finalizer", typeof(IShape).FullName + ".Run", "Nested", "Conditional", "MultiLine", "ExpressionBodied" })
        {
            Assert.That(child.Text, Does.Contain("|" + method + "|"), method);
        }

        Assert.That(child.Text, Does.Contain(typeName + "+Inner|Nested|"));
        // What log4net's walk wrote for each call (the sibling's text, equal to the child's) is the generator's reading.
        GeneratedSite[] described = GeneratedSite.All();
        string[] written = sibling.Text.Split('\n').Where(l => l.StartsWith(typeName, StringComparison.Ordinal)).ToArray();
        Assert.That(written, Has.Length.GreaterThanOrEqualTo(12));
        foreach (string line in written)
        {
            string[] fields = line.Split('|');
            Assert.That(described, Has.Some.EqualTo(new GeneratedSite(fields[0], fields[1], fields[3], int.Parse(fields[2], CultureInfo.InvariantCulture))), "the runtime reports the file and line the generator read: " + line);
        }
    }

    [Test]
    public void AHotSmallMethod_KeepsItsOwnFrame_SoLog4netAndTheCallSiteAgree()
    {
        var (logger, log) = _repositories.NewLogger("hot");
        var child = new Log4netChild("%M|%L%n");
        logger.AddAppender(Async(nameof(DisruptorAsyncAppender), child.Appender));
        var sibling = new StringAppender("%M|%L%n");
        logger.AddAppender(sibling);

        // Enough calls of the loop, with pauses, for the tiered JIT to recompile it optimized, with Hot inlined into it.
        for (int round = 0; round < 60; round++)
        {
            HotLoop(log, 40);
            if (round % 20 == 19)
            {
                Thread.Sleep(300);
            }
        }

        Assert.That(((IFlushable)logger.Appenders[0]).Flush(10_000), Is.True);
        Assert.That(child.Text, Is.EqualTo(sibling.Text));
        string[] lines = sibling.Text.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.That(lines, Has.Length.EqualTo(2400));
        Assert.That(lines.Distinct(), Is.EqualTo(new[] { "Hot|" + HotLine }), "log4net finds the small method every time, not its caller");
    }

    // The call and the line number it is on: same line.
    private static readonly int HotLine = LineHere(); [MethodImpl(MethodImplOptions.AggressiveInlining)] private static void Hot(ILog log, int i) => log.InfoFormat("hot {0}", i);

    [MethodImpl(MethodImplOptions.AggressiveOptimization)] // optimized from the first call: the JIT would inline Hot here
    private static void HotLoop(ILog log, int calls)
    {
        for (int i = 0; i < calls; i++)
        {
            Hot(log, i);
        }
    }

    private static int LineHere([CallerLineNumber] int line = 0) => line;

    [Test]
    public void NestedCalls_DisabledLevels_AndFailingAppenders_LeaveEveryEventItsOwnLocation()
    {
        var (logger, log) = _repositories.NewLogger("nested");
        logger.Level = Level.Info;
        logger.AddAppender(new NestingAppender(log));
        var child = new Log4netChild(Pattern);
        logger.AddAppender(Async(nameof(BoundedQueueAsyncAppender), child.Appender));
        var sibling = new StringAppender(Pattern);
        logger.AddAppender(sibling);

        log.Debug("disabled"); // intercepted, not logged
        Action lambda = () => log.Info("from a lambda");
        lambda();
        log.Info("nest"); // the nesting appender logs from a lambda while this call is under way
        log.Info("throw"); // the nesting appender throws: log4net reports it and carries on
        lambda();
        Assert.That(((IFlushable)logger.Appenders[1]).Flush(10_000), Is.True);

        Assert.That(child.Text, Is.EqualTo(sibling.Text));
        string[] lines = child.Text.Split('\n', StringSplitOptions.RemoveEmptyEntries);
        Assert.That(lines.Select(l => l.Split('|')[4]), Is.EqualTo(new[] { "from a lambda", "nested", "nest", "throw", "from a lambda" }));
        // The nested call walks (a lambda): its own method, or log4net's "?" when the runtime inlined LogImpl's method
        // into the lambda (the sibling above then says "?" too); never the outer call's site.
        Assert.That(lines[1], Does.Contain("<").Or.StartWith("?|?|?|?|").And.Not.Contain("|" + nameof(NestedCalls_DisabledLevels_AndFailingAppenders_LeaveEveryEventItsOwnLocation) + "|"), "the nested call's own (lambda) method");
        Assert.That(lines[2], Does.Contain("|" + nameof(NestedCalls_DisabledLevels_AndFailingAppenders_LeaveEveryEventItsOwnLocation) + "|"));
    }

    [Test]
    public void AnILogOfAnotherType_HasItsOwnMethodCalled_WithTheSameArguments()
    {
        var (logger, log) = _repositories.NewLogger("proxy");
        var child = new Log4netChild(Pattern + "%exception");
        logger.AddAppender(Async(nameof(BoundedQueueAsyncAppender), child.Appender));
        var sibling = new StringAppender(Pattern + "%exception");
        logger.AddAppender(sibling);
        ForwardingLog proxy = ForwardingLog.Over(log);

        ((ILog)proxy).InfoFormat("through a proxy {0}", 1);
        ((ILog)proxy).Warn("warn", new InvalidOperationException("x"));
        ((ILog)proxy).ErrorFormat(CultureInfo.InvariantCulture, "{0} {1}", "provider", 2);
        Assert.That(((IFlushable)logger.Appenders[0]).Flush(10_000), Is.True);

        Assert.That(proxy.Calls, Is.EqualTo(new[] { "InfoFormat(String, Object)", "Warn(Object, Exception)", "ErrorFormat(IFormatProvider, String, Object[])" }));
        Assert.That(child.Text, Is.EqualTo(sibling.Text));
        Assert.That(child.Text, Does.Contain("through a proxy 1").And.Contain("|warn").And.Contain("System.InvalidOperationException: x").And.Contain("provider 2"));
    }

    private static AsyncForwardingAppender Async(string kind, IAppender child) => AsyncAppenderKind.Activated(kind, "callsite-async", child);

    /// <summary>Before the others: on "nest" logs from a lambda (a call the generator leaves alone) while the outer call
    /// is under way; on "throw" throws.</summary>
    private sealed class NestingAppender : IAppender
    {
        private readonly ILog _log;

        public NestingAppender(ILog log) => _log = log;

        public string Name { get; set; } = "nesting";

        public void Close()
        {
        }

        public void DoAppend(LoggingEvent loggingEvent)
        {
            if (Equals(loggingEvent.MessageObject, "nest"))
            {
                Action nested = () => _log.Info("nested");
                nested();
            }
            else if (Equals(loggingEvent.MessageObject, "throw"))
            {
                throw new InvalidOperationException("an appender that fails");
            }
        }
    }
}

public interface IShape
{
    void Run();
}

/// <summary>Methods of every kind the generator describes, each with an ILog call.</summary>
public sealed class Shapes : IShape
{
    private static ILog? s_log;

    internal static ILog Current => s_log!;
    private readonly ILog _log;

    private Shapes(ILog log)
    {
        _log = log;
        _log.Info("constructor");
    }

    public event EventHandler? Changed
    {
        add => _log.Info("event add");
        remove => _log.Info("event remove");
    }

    public int Value
    {
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

    public static Shapes operator +(Shapes a, Shapes b)
    {
        a._log.Warn("operator");
        return a;
    }

    public static implicit operator int(Shapes shapes)
    {
        shapes._log.Error("conversion", new InvalidOperationException("x"));
        return 0;
    }

    void IShape.Run() => _log.DebugFormat("explicit {0} {1}", 1, 2);

    public static void All(ILog log)
    {
        s_log = log;
        Later.Touch();
        var shapes = new Shapes(log);
        shapes.Value = 3;
        _ = shapes[4];
        shapes.Changed += (_, _) => { };
        _ = shapes + shapes;
        int converted = shapes;
        ((IShape)shapes).Run();
        Inner.Nested(log);
        Conditional(log);
        MultiLine(log, converted);
        ExpressionBodied(log);
        Finalizer(log);
    }

    private static void Conditional(ILog? log)
    {
        log?.FatalFormat(CultureInfo.InvariantCulture, "conditional {0}", 1);
    }

    private static void MultiLine(ILog log, int value)
    {
        log.InfoFormat(
            "multi {0} {1} {2}",
            value,
            value + 1,
            value + 2);
    }

    private static void ExpressionBodied(ILog log) => log.Info("expression bodied");

    private static void Finalizer(ILog log) => log.WarnFormat("finalizer {0}", "stand-in");

    private static class Later
    {
        static Later()
        {
            Current.Info("static constructor");
        }

        public static void Touch()
        {
        }
    }

    private static class Inner
    {
        public static void Nested(ILog log) => log.ErrorFormat("nested {0} {1} {2}", 1, 2, 3);
    }
}

/// <summary>An <see cref="ILog"/> that is not log4net's <c>LogImpl</c>: forwards each call to one, and records it.</summary>
public class ForwardingLog : DispatchProxy
{
    private ILog? _inner;

    public List<string> Calls { get; } = new List<string>();

    public static ForwardingLog Over(ILog inner)
    {
        var proxy = (ForwardingLog)(object)Create<ILog, ForwardingLog>();
        proxy._inner = inner;
        return proxy;
    }

    protected override object? Invoke(MethodInfo? targetMethod, object?[]? args)
    {
        Calls.Add($"{targetMethod!.Name}({string.Join(", ", targetMethod.GetParameters().Select(p => p.ParameterType.Name))})");
        return targetMethod.Invoke(_inner, args);
    }
}
