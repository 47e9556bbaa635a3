using System;
using System.Globalization;
using System.IO;
using log4net;
using log4net.Appender;
using log4net.Core;
using log4net.Filter;
using log4net.Repository.Hierarchy;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Intercepted;

/// <summary>
/// SPEC 22: the intercepted calls of this assembly go straight into the async appenders' slots when every appender
/// their logger reaches is one, and write what they write through log4net; every change log4net allows sends them
/// back through log4net. Which path a call took shows in what it allocates: log4net's event is 160 bytes and more.
/// </summary>
[NonParallelizable]
public sealed class FastPathTests
{
    private const string Pattern = "%level|%logger|%thread|%C|%M|%L|%F|%message|%exception|%n";

    private static string Config(string kind, bool fast, string pattern, string file = "out.log") => $@"
<log4net>
  <appender name=""file"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
    <file value=""{{dir}}{file}"" />
    <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{pattern}"" /></layout>
  </appender>
  <appender name=""async"" type=""LowLatencyLog.Appender.{kind}, LowLatencyLog"">
    <fastPath value=""{(fast ? "true" : "false")}"" />
    <appender-ref ref=""file"" />
  </appender>
  <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
</log4net>";

    private static string Log4netConfig(string pattern) => $@"
<log4net>
  <appender name=""file"" type=""log4net.Appender.FileAppender"">
    <file value=""{{dir}}out.log"" />
    <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{pattern}"" /></layout>
  </appender>
  <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
</log4net>";

    private static readonly Exception Failure = MakeFailure();

    private static Exception MakeFailure()
    {
        try
        {
            throw new InvalidOperationException("failed");
        }
        catch (InvalidOperationException e)
        {
            return e;
        }
    }

    // The same call sites for every run, so each run's location lines are the same.
    private static void Calls(ILog log)
    {
        log.Info("constant");
        log.Debug("debug constant");
        log.Warn("with exception", Failure);
        log.Error("error, no exception", null);
        log.InfoFormat("one {0}", 42);
        log.WarnFormat("two {0} {1}", 1.5, "text");
        log.ErrorFormat("three {0:N2} {1} {2}", 1234.5, new DateTime(2026, 11, 28, 1, 2, 3), Guid.Empty);
        log.FatalFormat("array {0} {1} {2} {3}", 1, 2, 3, 4);
        log.InfoFormat(new CultureInfo("de-DE"), "provider {0:N2}", 1234.5);
        log.InfoFormat("bad {1}", 1); // log4net's error text
        log.Info(new string('x', 2000)); // longer than a slot's text
        log.Info(12345); // not a string: through log4net
        log.Info(null);
        log.InfoFormat("nested {0}", new Nested(log));
    }

    /// <summary>An argument whose <c>ToString()</c> logs: a re-entrant call, dropped by the appender taking the outer one.</summary>
    private sealed class Nested
    {
        private readonly ILog _log;

        public Nested(ILog log) => _log = log;

        public override string ToString()
        {
            _log.Info("from ToString");
            return "nested";
        }
    }

    private static string Run(string xml, Action<ILog> calls)
    {
        using var harness = new Log4netHarness(xml);
        calls(harness.Logger("fast.logger"));
        harness.Shutdown();
        return File.ReadAllText(harness.PathOf("out.log"));
    }

    [TestCaseSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.TypeNames))]
    public void EveryShape_WritesWhatLog4netWrites_OnTheFastPathAndOff(string kind)
    {
        string log4net = Run(Log4netConfig(Pattern), Calls);
        string off = Run(Config(kind, fast: false, Pattern), Calls);
        string on = Run(Config(kind, fast: true, Pattern), Calls);

        Assert.That(log4net, Does.Contain("|constant|").And.Contain("bad {1}").And.Contain(nameof(Calls)));
        Assert.That(off, Is.EqualTo(log4net));
        Assert.That(on, Is.EqualTo(log4net));
    }

    [TestCaseSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.TypeNames))]
    public void AConstantMessage_AllocatesNothing_AndAFormat_OnlyTheCallersBox(string kind)
    {
        using var harness = new Log4netHarness(Config(kind, fast: true, "%date %level %thread %logger - %message%n"));
        ILog log = harness.Logger("fast.logger");
        const int Calls = 2_000;
        Warm(log);

        long constant = Allocations.LeastOfThreeRounds(() => Constants(log, Calls));
        long format = Allocations.LeastOfThreeRounds(() => Formats(log, Calls));

        if (!FastPath.InThisBuild)
        {
            Assert.That(constant, Is.GreaterThanOrEqualTo(Calls * 100), "the netstandard2.0 build: log4net's event");
            return;
        }

        Assert.That(constant, Is.LessThan(Calls / 10), "bytes for all constant calls");
        Assert.That(format, Is.LessThan(Calls * 25), "bytes for all InfoFormat calls");
        Assert.That(harness.InternalErrors, Is.Empty);
    }

    [Test]
    public void ALog4netChild_GetsTheMessageAndExceptionObjectsLog4netMakes()
    {
        var (logger, log) = new PrivateRepositories("fastobjects-").NewLogger("fast.logger");
        var child = new RecordingAppender { Layout = new log4net.Layout.PatternLayout("%message%n") };
        // fix as Auto derives it for a log4net FileAppender with this layout (for a type it does not know, Auto adds
        // the properties, which take log4net's path).
        var async = new BoundedQueueAsyncAppender { Name = "async", Fix = "Message, ThreadName, Exception" };
        async.AddAppender(child);
        async.ActivateOptions();
        logger.AddAppender(async);
        Warm(log);
        double perCall = PerCall(log);
        ObjectCalls(log);
        Assert.That(async.Flush(10_000), Is.True);
        logger.Repository!.Shutdown();

        FastPath.AssertCallsTookIt(perCall, "a string message is its own message object: still nothing allocated");
        LoggingEvent[] last = child.Events[^2..];
        Assert.That(last[0].MessageObject, Is.InstanceOf<log4net.Util.SystemStringFormat>());
        Assert.That(last[0].MessageObject!.ToString(), Is.EqualTo("value 7"));
        Assert.That(last[0].RenderedMessage, Is.EqualTo("value 7"));
        Assert.That(last[1].MessageObject, Is.EqualTo("failed"));
        Assert.That(last[1].ExceptionObject, Is.SameAs(Failure));
    }

    private static void ObjectCalls(ILog log)
    {
        log.InfoFormat("value {0}", 7);
        log.Error("failed", Failure);
    }

    [Test]
    public void TurnedOff_TheSameCallsAllocateLog4netsEvent()
    {
        using var harness = new Log4netHarness(Config("BoundedQueueAsyncAppender", fast: false, "%message%n"));
        ILog log = harness.Logger("fast.logger");
        Warm(log);

        Assert.That(PerCall(log), Is.GreaterThanOrEqualTo(100));
    }

    [Test]
    public void TheRuntimeSwitch_TurnsItOffForAppendersActivatedAfterIt()
    {
        // What MSBuild's LowLatencyLogFastPath=false sets in the application's runtimeconfig.json.
        AppContext.SetSwitch("LowLatencyLog.FastPath", false);
        try
        {
            using var harness = new Log4netHarness(Config("DisruptorAsyncAppender", fast: true, "%message%n"));
            ILog log = harness.Logger("fast.logger");
            Warm(log);
            Assert.That(PerCall(log), Is.GreaterThanOrEqualTo(100));
        }
        finally
        {
            AppContext.SetSwitch("LowLatencyLog.FastPath", true);
        }
    }

    [Test]
    public void EveryChangeLog4netAllows_IsFollowed_OnTheNextCall()
    {
        using var harness = new Log4netHarness(Config("DisruptorAsyncAppender", fast: true, "%level %logger %message%n"));
        ILog log = harness.Logger("fast.logger");
        var logger = (Logger)log.Logger;
        var async = harness.Appender<AsyncForwardingAppender>("async");
        Warm(log);
        FastPath.AssertCallsTookIt(PerCall(log), "fast to begin with");

        // A log4net appender on the way: every call goes through log4net, and it gets them.
        var memory = new MemoryAppender();
        harness.Hierarchy.Root.AddAppender(memory);
        log.Info("with memory");
        Assert.That(memory.PopAllEvents().Length, Is.EqualTo(1));
        Assert.That(PerCall(log), Is.GreaterThanOrEqualTo(100));
        memory.Clear();
        harness.Hierarchy.Root.RemoveAppender(memory);
        FastPath.AssertCallsTookIt(PerCall(log), "fast again");
        log.Info("without memory");
        Assert.That(memory.PopAllEvents().Length, Is.Zero);

        // Levels and the repository's threshold: asked of log4net every time.
        logger.Level = Level.Warn;
        log.Info("below the logger's level");
        logger.Level = null;
        harness.Hierarchy.Threshold = Level.Error;
        log.Warn("below the threshold");
        harness.Hierarchy.Threshold = Level.All;

        // A logger between this one and the root, with its own appender and no additivity.
        ILog parent = harness.Logger("fast");
        var parentMemory = new MemoryAppender();
        ((Logger)parent.Logger).AddAppender(parentMemory);
        ((Logger)parent.Logger).Additivity = false;
        log.Info("to the parent only");
        Assert.That(memory.PopAllEvents().Length, Is.Zero);
        Assert.That(parentMemory.PopAllEvents().Length, Is.EqualTo(1));
        ((Logger)parent.Logger).RemoveAllAppenders();
        ((Logger)parent.Logger).Additivity = true;

        // A filter on the async appender needs an event: through log4net, and applied.
        async.AddFilter(new LevelMatchFilter { LevelToMatch = Level.Debug, AcceptOnMatch = false });
        log.Debug("filtered out");
        Assert.That(PerCall(log), Is.GreaterThanOrEqualTo(100));
        async.ClearFilters();
        log.Info("after the filter");

        harness.Shutdown();
        log.Info("after shutdown"); // never throws
        Assert.That(harness.ReadLines("out.log"), Is.SupersetOf(new[] { "INFO fast.logger with memory", "INFO fast.logger without memory", "INFO fast.logger after the filter" }));
        Assert.That(string.Join("\n", harness.ReadLines("out.log")), Does.Not.Contain("below").And.Not.Contain("to the parent only").And.Not.Contain("filtered out").And.Not.Contain("after shutdown"));
    }

    [Test]
    public void TwoAsyncAppendersOnTheWay_BothTakeTheCall_UntilAdditivityStopsAtTheFirst()
    {
        using var harness = new Log4netHarness(@"
<log4net>
  <appender name=""rootFile"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
    <file value=""{dir}out.log"" /><layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%n"" /></layout>
  </appender>
  <appender name=""subFile"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
    <file value=""{dir}sub.log"" /><layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%n"" /></layout>
  </appender>
  <appender name=""rootAsync"" type=""LowLatencyLog.Appender.DisruptorAsyncAppender, LowLatencyLog""><appender-ref ref=""rootFile"" /></appender>
  <appender name=""subAsync"" type=""LowLatencyLog.Appender.BoundedQueueAsyncAppender, LowLatencyLog""><appender-ref ref=""subFile"" /></appender>
  <logger name=""fast""><appender-ref ref=""subAsync"" /></logger>
  <root><level value=""ALL"" /><appender-ref ref=""rootAsync"" /></root>
</log4net>");
        ILog log = harness.Logger("fast.logger");
        Warm(log);
        FastPath.AssertCallsTookIt(PerCall(log), "fast with both");
        Constants(log, 1);
        ((Logger)harness.Logger("fast").Logger).Additivity = false;
        FastPath.AssertCallsTookIt(PerCall(log), "fast with one");
        log.Info("sub only");
        harness.Shutdown();

        string[] root = harness.ReadLines("out.log");
        string[] sub = harness.ReadLines("sub.log");
        Assert.That(sub[^1], Is.EqualTo("sub only"));
        Assert.That(root, Does.Not.Contain("sub only"));
        Assert.That(sub.Length - root.Length, Is.EqualTo(3 * 1_000 + 1), "the second round of PerCall and the last call went to App.Sub's appender only");
    }

    [Test]
    public void OneCallSite_UsedWithTwoLoggersInTurn_StaysFast()
    {
        using var harness = new Log4netHarness(Config("BoundedQueueAsyncAppender", fast: true, "%logger %message%n"));
        ILog first = harness.Logger("fast.first");
        ILog second = harness.Logger("fast.second");
        Warm(first);
        Warm(second);
        const int Rounds = 1_000;

        long bytes = Allocations.LeastOfThreeRounds(() =>
        {
            for (int i = 0; i < Rounds; i++)
            {
                Constants(first, 1);
                Constants(second, 1);
            }
        });

        FastPath.AssertCallsTookIt(bytes / (2.0 * Rounds), "the site's route changes logger on every call");
    }

    [Test]
    public void AReconfiguration_SendsTheNextCallToTheNewAppenders()
    {
        using var harness = new Log4netHarness(Config("HotSwapAsyncAppender", fast: true, "%message%n"));
        ILog log = harness.Logger("fast.logger");
        log.Info("first");
        harness.Hierarchy.ResetConfiguration();
        harness.Configure(Config("HotSwapAsyncAppender", fast: true, "%message%n", file: "second.log"));
        log.Info("second");
        harness.Shutdown();

        Assert.That(harness.ReadLines("out.log"), Is.EqualTo(new[] { "first" }));
        Assert.That(harness.ReadLines("second.log"), Is.EqualTo(new[] { "second" }));
    }

    private static void Warm(ILog log)
    {
        for (int i = 0; i < 100; i++)
        {
            log.Info("warm");
            log.InfoFormat("warm {0}", i);
        }
    }

    // Bytes per call of log.Info(constant), the least of three rounds of 1,000 (the calls sit in named methods: the
    // generator leaves lambdas to the stack walk).
    private static double PerCall(ILog log) => Allocations.LeastOfThreeRounds(() => Constants(log, 1_000)) / 1_000.0;

    private static void Constants(ILog log, int calls)
    {
        for (int i = 0; i < calls; i++)
        {
            log.Info("constant");
        }
    }

    private static void Formats(ILog log, int calls)
    {
        for (int i = 0; i < calls; i++)
        {
            log.InfoFormat("value {0}", i); // the int's box: 24 bytes, the caller's own
        }
    }
}
