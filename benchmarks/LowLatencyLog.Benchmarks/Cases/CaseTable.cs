using System;
using System.Collections.Generic;
using System.Linq;
using System.Xml;
using log4net;
using LowLatencyLog.Benchmarks.Alternatives;
using LowLatencyLog.Benchmarks.Baselines;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>Which suites run a case.</summary>
[Flags]
internal enum Suites
{
    None = 0,

    /// <summary><see cref="EndToEnd.EndToEndBenchmarks"/>.</summary>
    EndToEnd = 1,

    /// <summary><see cref="Alternatives.AlternativesBenchmarks"/>.</summary>
    Alternatives = 2,

    /// <summary><c>--quick</c>.</summary>
    Quick = 4,

    /// <summary><c>--latency</c>.</summary>
    Latency = 8,

    /// <summary><c>--stall</c>: the latency harness with and without a child that stalls.</summary>
    Stall = 16,
}

/// <summary>One named way of logging to disk (or to a counter), and the suites it takes part in.</summary>
internal sealed class BenchCase
{
    private readonly Func<MessageKind, BenchSession> _open;

    public BenchCase(string name, string description, Suites suites, string[] requiredTypes, bool isAsync, Func<MessageKind, BenchSession> open)
    {
        Name = name;
        Description = description;
        Suites = suites;
        RequiredTypes = requiredTypes;
        IsAsync = isAsync;
        _open = open;
    }

    public string Name { get; }

    public string Description { get; }

    public Suites Suites { get; }

    /// <summary>The types the configuration names, as the configuration names them.</summary>
    public string[] RequiredTypes { get; }

    /// <summary>Hands events to another thread (what the latency harness compares with the synchronous appender).</summary>
    public bool IsAsync { get; }

    /// <summary>The first required type that does not resolve, or null when the case can run.</summary>
    public string? MissingType => RequiredTypes.FirstOrDefault(t => Resolve(t) == null);

    public bool Available => MissingType == null;

    /// <summary>A fresh pipeline whose every call logs <paramref name="kind"/>.</summary>
    public BenchSession Open(MessageKind kind) => _open(kind);

    public override string ToString() => Name;

    /// <summary>
    /// A log4net type name as log4net resolves it: assembly-qualified, or else a type of log4net itself. Our appenders
    /// are named <c>LowLatencyLog.Appender.X, LowLatencyLog</c>, so a case runs as soon as the loaded LowLatencyLog
    /// assembly has the type.
    /// </summary>
    private static Type? Resolve(string typeName) =>
        typeName.Contains(',') ? Type.GetType(typeName, throwOnError: false) : typeof(ILog).Assembly.GetType(typeName, throwOnError: false);
}

/// <summary>
/// Every case of every suite, in one place. log4net cases are XML configurations, exactly as a user writes them; our
/// appenders are referred to by type name, so their cases are skipped until the types exist in the LowLatencyLog
/// assembly and appear by themselves once they do.
/// </summary>
internal static class CaseTable
{
    /// <summary>The case every ratio is against: log4net's <c>RollingFileAppender</c> with its defaults.</summary>
    public const string Reference = "RollingFile";

    /// <summary>The latency harness's floor: pacing and timing with no logging call.</summary>
    public const string NoLogging = "NoLogging";

    /// <summary>The logger into a synchronous <c>NullAppender</c>: log4net's own floor.</summary>
    public const string Floor = "Log4net-Floor";

    /// <summary>Our file appender alone on the logging thread: what the async appenders in front of it are weighed against.</summary>
    public const string SyncFile = "RollingBufferedFile";

    /// <summary>Same capacity for every async case (a power of two, which the Disruptor appender needs).</summary>
    private const int BufferSize = 65536;

    private const string Layout = $"""<layout type="log4net.Layout.PatternLayout"><conversionPattern value="{BenchMessage.Log4netPattern}" /></layout>""";

    private static readonly (string Name, string Type)[] OurAsyncAppenders =
    {
        ("BoundedQueue", "LowLatencyLog.Appender.BoundedQueueAsyncAppender, LowLatencyLog"),
        ("HotSwap", "LowLatencyLog.Appender.HotSwapAsyncAppender, LowLatencyLog"),
        ("Disruptor", "LowLatencyLog.Appender.DisruptorAsyncAppender, LowLatencyLog"),
    };

    private static readonly Lazy<BenchCase[]> Cases = new Lazy<BenchCase[]>(Build);

    public static IReadOnlyList<BenchCase> All => Cases.Value;

    public static BenchCase Get(string name) =>
        All.FirstOrDefault(c => c.Name == name) ?? throw new ArgumentException($"No case named {name}.", nameof(name));

    /// <summary>The cases of a suite that can run with the assemblies loaded now.</summary>
    public static IEnumerable<BenchCase> Runnable(Suites suite) => All.Where(c => (c.Suites & suite) != 0 && c.Available);

    /// <summary>The cases of a suite skipped because a type they name does not exist (yet).</summary>
    public static IEnumerable<BenchCase> Skipped(Suites suite) => All.Where(c => (c.Suites & suite) != 0 && !c.Available);

    /// <summary>Prints the skipped cases of the suites about to run, so a missing appender is never silent.</summary>
    public static void ReportSkipped(Suites suites)
    {
        foreach (BenchCase c in All.Where(c => (c.Suites & suites) != 0 && !c.Available))
        {
            Console.WriteLine($"skipped: {c.Name} ({c.MissingType} is not in the loaded assemblies)");
        }
    }

    private static BenchCase[] Build()
    {
        const Suites Everywhere = Suites.EndToEnd | Suites.Alternatives | Suites.Quick;
        var cases = new List<BenchCase>
        {
            new BenchCase(NoLogging, "no logging call: what the latency harness's pacing and timing cost alone",
                Suites.Latency, Array.Empty<string>(), isAsync: false, kind => new NoLoggingSession(kind)),

            // The fastest a log4net call can be: the logger straight into a synchronous appender that does nothing.
            // An application cannot create log4net events faster; the fast layout's end-to-end bar is set against it.
            Log4net(Floor, "log4net floor: the logger straight into a synchronous NullAppender (no layout, no file)",
                Suites.EndToEnd | Suites.Quick | Suites.Latency, isAsync: false, counter: "Root",
                """<appender name="Root" type="LowLatencyLog.Appender.NullAppender, LowLatencyLog" />"""),
            // An intercepted call captured as for the buffer, then dropped: the calling thread's cost before the
            // hand-over, beside "BoundedQueue+Null+Intercepted".
            Log4net("CaptureOnly+Intercepted", "intercepted calls captured as the async appenders capture them, then dropped (benchmark-only): the capture without the hand-over",
                Suites.Quick, isAsync: false, counter: "Root", intercepted: true, new[] { "Root" },
                """<appender name="Root" type="LowLatencyLog.Benchmarks.Baselines.CaptureOnlyAppender, LowLatencyLog.Benchmarks" />"""),

            // log4net's own appenders, configured as the documentation shows them.
            Log4net("File-ImmediateFlush", "log4net FileAppender, immediateFlush=true (its default): one flush per event",
                Suites.EndToEnd | Suites.Quick | Suites.Latency, isAsync: false, counter: null,
                FileAppender("Root", immediateFlush: true)),
            Log4net("File-Buffered", "log4net FileAppender, immediateFlush=false: data reaches the file when its buffer fills or at close",
                Suites.EndToEnd | Suites.Quick, isAsync: false, counter: null,
                FileAppender("Root", immediateFlush: false)),
            Log4net(Reference, "log4net RollingFileAppender with every default (10 MB, 0 backups, a named mutex per append)",
                Everywhere, isAsync: false, counter: null,
                $$"""
                <appender name="Root" type="log4net.Appender.RollingFileAppender">
                  <file value="{dir}app.log" />
                  {{Layout}}
                </appender>
                """),
            Log4net("RollingFile-Buffered", "log4net RollingFileAppender, defaults but immediateFlush=false",
                Suites.EndToEnd | Suites.Quick, isAsync: false, counter: null,
                $$"""
                <appender name="Root" type="log4net.Appender.RollingFileAppender">
                  <file value="{dir}app.log" />
                  <immediateFlush value="false" />
                  {{Layout}}
                </appender>
                """),
            // fix: what the layout needs, as for every async case (its default, All, walks the stack for every event).
            Log4net("BufferingForwarding+File", "log4net BufferingForwardingAppender (bufferSize 512) in front of a FileAppender (immediateFlush=false)",
                Suites.EndToEnd, isAsync: false, counter: null,
                """
                <appender name="Root" type="log4net.Appender.BufferingForwardingAppender">
                  <fix value="Message, ThreadName, Exception" />
                  <appender-ref ref="File" />
                </appender>
                """,
                FileAppender("File", immediateFlush: false)),

            // Async appenders written the simple way, over the BCL's queues, in front of log4net's FileAppender.
            Log4net("BlockingCollection+File", "BlockingCollection async appender (benchmark-only) in front of a FileAppender (immediateFlush=false, flushed at the end of each batch)",
                Suites.EndToEnd | Suites.Quick | Suites.Latency, isAsync: true, counter: null,
                BaselineAppender(typeof(BlockingCollectionAsyncAppender)), FileAppender("File", immediateFlush: false)),
            Log4net("Channel+File", "System.Threading.Channels async appender (benchmark-only) in front of a FileAppender (immediateFlush=false, flushed at the end of each batch)",
                Suites.EndToEnd | Suites.Quick | Suites.Latency, isAsync: true, counter: null,
                BaselineAppender(typeof(ChannelAsyncAppender)), FileAppender("File", immediateFlush: false)),
        };

        // Our file appender on the logging thread, no async appender: what the worker pays per event for the file.
        cases.Add(Log4net(SyncFile, "RollingBufferedFileAppender on the logging thread (no async appender)",
            Suites.EndToEnd | Suites.Quick | Suites.Latency | Suites.Stall, isAsync: false, counter: null, RollingBufferedFileAppender("Root")));
        // The same with a child beside it that stalls 100 ms every second (a disk or a network appender pausing).
        cases.Add(Log4net(SyncFile + "+Stall", "RollingBufferedFileAppender on the logging thread, and beside it a child that stalls 100 ms every second",
            Suites.Stall, isAsync: false, counter: null, new[] { "Root", "Stall" }, RollingBufferedFileAppender("Root"), StallingChild("Stall")));

        // Ours: each async appender in front of a NullAppender (the mechanism alone) and of RollingBufferedFileAppender
        // (the configuration the README recommends, a drop-in for RollingFileAppender).
        foreach ((string name, string type) in OurAsyncAppenders)
        {
            cases.Add(Log4net(name + "+Null", $"{name}AsyncAppender in front of a NullAppender: the async mechanism alone",
                Suites.EndToEnd, isAsync: true, counter: "Child",
                OurAppender(type), """<appender name="Child" type="LowLatencyLog.Appender.NullAppender, LowLatencyLog" />"""));
            cases.Add(Log4net(name + "+RollingBufferedFile", $"{name}AsyncAppender in front of a RollingBufferedFileAppender",
                Everywhere | Suites.Latency | Suites.Stall, isAsync: true, counter: null,
                OurAppender(type), RollingBufferedFileAppender("Child")));
            // The same two with the calls intercepted: straight into the buffer, no log4net event.
            cases.Add(Log4net(name + "+Null+Intercepted", $"{name}AsyncAppender in front of a NullAppender, intercepted calls (no log4net event)",
                Suites.EndToEnd | Suites.Quick, isAsync: true, counter: "Child", intercepted: true, new[] { "Root" },
                OurAppender(type), """<appender name="Child" type="LowLatencyLog.Appender.NullAppender, LowLatencyLog" />"""));
            cases.Add(Log4net(name + "+RollingBufferedFile+Intercepted", $"{name}AsyncAppender in front of a RollingBufferedFileAppender, intercepted calls (no log4net event)",
                Everywhere | Suites.Latency, isAsync: true, counter: null, intercepted: true, new[] { "Root" },
                OurAppender(type), RollingBufferedFileAppender("Child")));
            // fix as Auto derives it for the file alone, so the calling thread captures the same fields with the
            // staller beside it; Auto would add the properties for a child type it does not know (log4net warns once
            // that the staller gets none: it reads none).
            cases.Add(Log4net(name + "+RollingBufferedFile+Stall", $"{name}AsyncAppender in front of a RollingBufferedFileAppender and a child that stalls 100 ms every second",
                Suites.Stall, isAsync: true, counter: null,
                OurAppender(type, """<fix value="Message, ThreadName, Exception" /><appender-ref ref="Stall" />"""),
                RollingBufferedFileAppender("Child"), StallingChild("Stall")));
        }

        // What a user could pick instead of log4net, configured for the same line and lossless like our Block default.
        cases.Add(new BenchCase("NLog-Async+File", "NLog AsyncTargetWrapper (queue 65536, Block) + FileTarget",
            Suites.Alternatives | Suites.Quick, new[] { typeof(NLog.Targets.Wrappers.AsyncTargetWrapper).AssemblyQualifiedName! }, true, kind => new NLogSession(BufferSize, kind)));
        cases.Add(new BenchCase("Serilog-Async+File", "Serilog WriteTo.Async (bufferSize 65536, blockWhenFull) + File (buffered, flushToDiskInterval 1 s)",
            Suites.Alternatives | Suites.Quick, new[] { typeof(Serilog.LoggerConfigurationAsyncExtensions).AssemblyQualifiedName! }, true, kind => new SerilogSession(BufferSize, kind)));
        cases.Add(new BenchCase("ZLogger-File", "ZLogger's file provider (background writer, its defaults)",
            Suites.Alternatives | Suites.Quick, new[] { typeof(ZLogger.ZLoggerOptions).AssemblyQualifiedName! }, true, kind => new ZLoggerSession(kind)));
        return cases.ToArray();
    }

    private static BenchCase Log4net(string name, string description, Suites suites, bool isAsync, string? counter, params string[] appenders) =>
        Log4net(name, description, suites, isAsync, counter, new[] { "Root" }, appenders);

    private static BenchCase Log4net(string name, string description, Suites suites, bool isAsync, string? counter, string[] rootRefs, params string[] appenders) =>
        Log4net(name, description, suites, isAsync, counter, intercepted: false, rootRefs, appenders);

    /// <param name="intercepted">The calls are made from the project the call-site generator intercepts (SPEC 22's
    /// fast path where the configuration allows it), else from this one (log4net's path).</param>
    private static BenchCase Log4net(string name, string description, Suites suites, bool isAsync, string? counter, bool intercepted, string[] rootRefs, params string[] appenders)
    {
        string xml = $"""
            <log4net>
            {string.Join("\n", appenders)}
              <root>
                <level value="INFO" />
                {string.Concat(rootRefs.Select(r => $"<appender-ref ref=\"{r}\" />"))}
              </root>
            </log4net>
            """;
        return new BenchCase(name, description, suites, TypesIn(xml), isAsync, kind => new Log4netSession(xml, counter, kind, intercepted));
    }

    // Backups kept so that the long latency runs, which pass 10 MB, keep every line countable.
    internal static string RollingBufferedFileAppender(string name) => $$"""
        <appender name="{{name}}" type="LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog">
          <file value="{dir}app.log" />
          <maxSizeRollBackups value="100" />
          {{Layout}}
        </appender>
        """;

    private static string FileAppender(string name, bool immediateFlush) => $$"""
        <appender name="{{name}}" type="log4net.Appender.FileAppender">
          <file value="{dir}app.log" />
          <immediateFlush value="{{(immediateFlush ? "true" : "false")}}" />
          {{Layout}}
        </appender>
        """;

    private static string BaselineAppender(Type type) => $$"""
        <appender name="Root" type="{{type.FullName}}, {{type.Assembly.GetName().Name}}">
          <bufferSize value="{{BufferSize}}" />
          <appender-ref ref="File" />
        </appender>
        """;

    /// <summary>Our async appenders' settings: bufferSize, overflow, appender-ref children (and <paramref name="more"/>).</summary>
    private static string OurAppender(string type, string more = "") => $$"""
        <appender name="Root" type="{{type}}">
          <bufferSize value="{{BufferSize}}" />
          <overflow value="Block" />
          <appender-ref ref="Child" />
          {{more}}
        </appender>
        """;

    private static string StallingChild(string name) => $$"""
        <appender name="{{name}}" type="{{typeof(StallingAppender).FullName}}, {{typeof(StallingAppender).Assembly.GetName().Name}}">
          <stallMilliseconds value="100" />
          <everyMilliseconds value="1000" />
        </appender>
        """;

    private static string[] TypesIn(string xml)
    {
        var document = new XmlDocument();
        document.LoadXml(xml);
        return document.SelectNodes("//appender/@type")!.Cast<XmlAttribute>().Select(a => a.Value).Distinct().ToArray();
    }
}
