using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Threading.Tasks;
using log4net;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using log4net.Repository.Hierarchy;
using log4net.Util;
using LowLatencyLog.Appender;
using LowLatencyLog.Capture;
using LowLatencyLog.Log4netInternals;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// Caller location behind an async appender: every location converter writes what a synchronous sibling writes for the
/// same call (log4net's own <c>LocationInfo</c>), from call sites of every shape, while the logging thread reads only
/// the one frame the layouts need.
/// </summary>
[NameCuttingCulture] // %logger{n} and %type{n}: log4net's cut throws under Thai
public class CallerLocationTests
{
    private readonly PrivateRepositories _repositories = new PrivateRepositories("location-");

    [TearDown]
    public void ShutDownRepositories()
    {
        _repositories.ShutDownAll();
    }

    private static readonly string[] Converters =
    {
        "%method", "%M", "%type", "%class", "%C", "%type{1}", "%C{2}", "%-30method|", "%.5type|", "%line", "%L", "%file", "%F",
        "%location", "%l", "%stacktrace{3}", "%stacktracedetail{2}",
    };

    /// <summary>Each converter alone, and generated mixes of two or three with the usual fields around them.</summary>
    public static IEnumerable<TestCaseData> Patterns()
    {
        var random = new Random(7);
        foreach (string kind in AsyncAppenderKind.TypeNames)
        {
            foreach (string converter in Converters)
            {
                yield return new TestCaseData(kind, converter + "%n").SetName($"{kind}: {converter}");
            }

            for (int i = 0; i < 6; i++)
            {
                string[] picked = Enumerable.Range(0, 2 + i % 2).Select(_ => Converters[random.Next(Converters.Length)]).ToArray();
                string pattern = "%level [%thread] " + string.Join(" - ", picked) + " %message%n";
                yield return new TestCaseData(kind, pattern).SetName($"{kind}: mix {i} {pattern.Replace("%n", "")}");
            }
        }
    }

    [Category("Oracle")]
    [TestCaseSource(nameof(Patterns))]
    public void EveryLocationConverter_WritesWhatASynchronousSiblingWrites_FromEveryKindOfCallSite(string kind, string pattern)
    {
        var (logger, log) = NewLogger();
        var child = new Log4netChild(pattern);
        AsyncForwardingAppender async = Async(kind, child.Appender);
        logger.AddAppender(async); // first: the sibling after it computes log4net's own location, for comparison
        var sibling = new StringAppender(pattern);
        logger.AddAppender(sibling);

        CallSites.All(log);
        Assert.That(async.Flush(10_000), Is.True);

        Assert.That(sibling.Text.Split('\n'), Has.Length.GreaterThan(CallSites.Count), "every call site logged");
        Assert.That(child.Text, Is.EqualTo(sibling.Text));
    }

    [TestCase("%method %type%n", "MethodOnly")]
    [TestCase("%C.%M:%L%n", "WithFile")]
    [TestCase("%location%n", "WithFile")]
    [TestCase("%stacktrace{2}%n", "")]
    public void OnlyWhatTheLayoutsRead_IsReadOnTheLoggingThread_AndTheSharedEventKeepsItsOwnLocationUncomputed(string pattern, string mode)
    {
        var (logger, log) = NewLogger();
        var child = new Log4netChild(pattern);
        AsyncForwardingAppender async = Async(nameof(BoundedQueueAsyncAppender), child.Appender);
        logger.AddAppender(async);
        var recorder = new RecordingAppender { Name = "after" };
        logger.AddAppender(recorder);

        MyWrapper.Write(log.Logger, "one"); // a boundary type that is always on the stack, whatever the JIT inlined
        Assert.That(async.Flush(10_000), Is.True);

        FixFlags flags = LocationMode(async);
        Assert.That((flags & CallerLocation.MethodOnly) != 0, Is.EqualTo(mode == "MethodOnly"), flags.ToString());
        Assert.That((flags & CallerLocation.WithFile) != 0, Is.EqualTo(mode == "WithFile"), flags.ToString());
        object data = typeof(LoggingEvent).GetField("_data", BindingFlags.Instance | BindingFlags.NonPublic)!.GetValue(recorder.Events.Single())!;
        object? location = typeof(LoggingEventData).GetField(nameof(LoggingEventData.LocationInfo))!.GetValue(data);
        // The netstandard2.0 build cannot read log4net's boundary type and asks the event, as log4net does.
        bool shortPath = mode != "" && EventFields.ReadsLocationBoundary;
        Assert.That(location == null, Is.EqualTo(shortPath), "log4net's own location was computed on the shared event only without the short path");
        Assert.That(child.Text, Does.Contain(nameof(OnlyWhatTheLayoutsRead_IsReadOnTheLoggingThread_AndTheSharedEventKeepsItsOwnLocationUncomputed)).Or.Contain(nameof(CallerLocationTests)));
    }

    [Category("Oracle")]
    [Test]
    public void AChildWhoseReadsAreUnknown_GetsLog4netsWholeLocation_WhenASiblingsLayoutMakesItCaptured()
    {
        var (logger, log) = NewLogger();
        var child = new Log4netChild("%method%n");
        var memory = new MemoryAppender { Name = "memory" }; // no layout: it may read anything of the event
        var async = (AsyncForwardingAppender)Activator.CreateInstance(typeof(BoundedQueueAsyncAppender))!;
        async.Name = "location-async";
        async.AddAppender(child.Appender);
        async.AddAppender(memory);
        async.ActivateOptions();
        logger.AddAppender(async);
        var sibling = new MemoryAppender { Name = "sync" };
        logger.AddAppender(sibling);

        MyWrapper.Write(log.Logger, "one");
        Assert.That(async.Flush(10_000), Is.True);

        Assert.That(LocationMode(async), Is.EqualTo(FixFlags.None), "log4net's own capture");
        LocationInfo theirs = sibling.GetEvents().Single().LocationInformation!;
        LocationInfo ours = memory.GetEvents().Single().LocationInformation!;
        Assert.That(ours.FullInfo, Is.EqualTo(theirs.FullInfo));
        Assert.That(ours.StackFrames, Is.Not.Null);
        Assert.That(ours.StackFrames!.Select(f => f.FullInfo), Is.EqualTo(theirs.StackFrames!.Select(f => f.FullInfo)));
    }

    [Test]
    public void ALayoutThatReadsTheLocation_IsNamedAtActivation_WithWhatItCosts()
    {
        var messages = new List<string>();
        void OnLog(object? sender, LogReceivedEventArgs e) => messages.Add(e.LogLog.Message);
        LogLog.LogReceived += OnLog;
        try
        {
            var child = new Log4netChild("%date %-5level %logger.%method:%line - %message%n");
            child.Appender.Name = "file";
            Async(nameof(DisruptorAsyncAppender), child.Appender);
        }
        finally
        {
            LogLog.LogReceived -= OnLog;
        }

        string warning = messages.Single(m => m.Contains("caller's location"));
        Assert.That(warning, Does.Contain("[file]").And.Contain("%method").And.Contain("%line").And.Contain("every log call"));
    }

    [Category("Oracle")]
    [Test]
    public void AWrapperWithItsOwnBoundaryType_IsSeenThroughAsBySynchronousLog4net()
    {
        var (logger, log) = NewLogger();
        var child = new Log4netChild("%type.%method:%line%n");
        logger.AddAppender(Async(nameof(HotSwapAsyncAppender), child.Appender));
        var sibling = new StringAppender("%type.%method:%line%n");
        logger.AddAppender(sibling);

        for (int i = 0; i < 3; i++)
        {
            MyWrapper.Write(log.Logger, "through the wrapper");
            log.Info("straight");
        }

        Assert.That(((IFlushable)logger.Appenders[0]).Flush(10_000), Is.True);
        Assert.That(child.Text, Is.EqualTo(sibling.Text));
        Assert.That(child.Text, Does.Contain(nameof(AWrapperWithItsOwnBoundaryType_IsSeenThroughAsBySynchronousLog4net)));
    }

    private static class MyWrapper
    {
        public static void Write(ILogger logger, string message) => logger.Log(typeof(MyWrapper), Level.Info, message, null);
    }

    /// <summary>Call sites of the shapes applications have.</summary>
    private static class CallSites
    {
        public const int Count = 10;

        public static void All(ILog log)
        {
            log.Info("plain");
            log.InfoFormat("format {0}", 1);
            Action lambda = () => log.Warn("lambda");
            lambda();
            Local();
            Generic<int>(log);
            new Instance(log).Log();
            Task.Run(() => log.Error("thread pool", new InvalidOperationException("x"))).Wait();
            AsyncMethod(log).GetAwaiter().GetResult();
            Deep(log, 20);
            log.Logger.Log(typeof(string), Level.Info, "a boundary type not on the stack: '?' everywhere", null);

            void Local() => log.Debug("local function");
        }

        private static void Generic<T>(ILog log) => log.Info("generic " + typeof(T).Name);

        private static async Task AsyncMethod(ILog log)
        {
            await Task.Yield();
            log.Info("after an await");
        }

        private static void Deep(ILog log, int depth)
        {
            if (depth == 0)
            {
                log.Info("deep");
                return;
            }

            Deep(log, depth - 1);
        }

        private sealed class Instance
        {
            private readonly ILog _log;

            public Instance(ILog log) => _log = log;

            public void Log() => _log.Info("instance");
        }
    }

    private static AsyncForwardingAppender Async(string kind, IAppender child) => AsyncAppenderKind.Activated(kind, "location-async", child);

    /// <summary>How much of the caller fix=Auto has the logging thread read for the appender's children: none (log4net's
    /// own capture), <see cref="CallerLocation.MethodOnly"/> or <see cref="CallerLocation.WithFile"/>.</summary>
    private static FixFlags LocationMode(AsyncForwardingAppender async) =>
        FixResolver.Resolve(null, async.Appenders.ToArray(), _ => { }, _ => { }) & (CallerLocation.MethodOnly | CallerLocation.WithFile);

    private (Logger Logger, ILog Log) NewLogger() => _repositories.NewLogger("location");
}
