using System;
using System.Linq;
using System.Security.Principal;
using System.Threading;
using log4net;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Appender;

/// <summary>
/// Async 7 and 8 (docs/behaviours.md): what a child renders equals what a synchronous appender renders for the same event on the
/// producer thread, and a synchronous sibling attached after the async appender sees the event as if it were absent.
/// </summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
[NameCuttingCulture] // %logger{n} and %type{n}: log4net's cut throws under Thai
public sealed class AsyncAppenderContextTests : AsyncAppenderFixture
{
    private const string Pattern =
        "%thread|%property{tc}|%property{lc}|%ndc|%message|%location|%username|%identity|%appdomain|%level|%logger|%exception";

    private const int Producers = 3;
    private const int PerProducer = 20;

    public AsyncAppenderContextTests(AsyncAppenderKind kind)
        : base(kind)
    {
    }

    [Test]
    public void ActivatedWithTheFlowSuppressed_StillStartsItsWorker()
    {
        // An application may configure log4net inside ExecutionContext.SuppressFlow (a host's start-up code). On .NET
        // Framework suppressing it again throws (.NET 10 allows it): the worker must start either way.
        Log4netHarness harness;
        using (ExecutionContext.SuppressFlow())
        {
            harness = Configure("", RecordingChild("child", "%message"));
        }

        harness.Logger("ctx").Info("after");
        Assert.That(Async(harness).Flush(10_000), Is.True);
        Assert.That(Child(harness).Lines, Is.EqualTo(new[] { "after" }));
        Assert.That(Child(harness).Threads.Single(), Is.Not.EqualTo(Thread.CurrentThread.Name ?? "").And.Not.Empty, "delivered by the worker");
        Assert.That(harness.InternalErrors, Is.Empty);
    }

    [TestCase(null)]
    [TestCase("Message, ThreadName, Exception, Properties, LocationInfo, UserName, Identity")]
    [TestCase("All")]
    public void Context_ChildRendersWhatASynchronousAppenderRendersOnTheProducerThread(string? fix)
    {
        var harness = Configure(
            fix == null ? "" : $@"<fix value=""{fix}"" />",
            RecordingChild("child", Pattern) + RecordingChild("sync", Pattern),
            rootRefs: @"<appender-ref ref=""sync"" />");

        RunProducers(Producers, p => LogWithContext(harness.Logger("ctx"), p));
        Assert.That(Async(harness).Flush(10_000), Is.True);

        string[] sync = Child(harness, "sync").Lines;
        string[] async = Child(harness, "child").Lines;
        Assert.That(async, Has.Length.EqualTo(Producers * PerProducer));
        Assert.That(async.OrderBy(l => l, StringComparer.Ordinal), Is.EqualTo(sync.OrderBy(l => l, StringComparer.Ordinal)));
        AssertRenderedOnProducer(sync);
    }

    [TestCase(null)]
    [TestCase("Message, ThreadName, Exception, Properties")]
    [TestCase("All")]
    public void Context_AFileChildWritesWhatASynchronousFileAppenderWrites_FromCapturedEvents(string? fix)
    {
        // Every converter here is on the fast layout path, so the file child takes the captured events as they are.
        const string FilePattern =
            "%date{yyyy-MM-dd HH:mm:ss,fff} %utcdate %timestamp [%thread] %-5level %logger{1} %property{tc}|%property{lc}|%ndc|%appdomain - %message%newline%exception";
        string File(string name) => $@"<appender name=""{name}"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
              <file value=""{{dir}}{name}.log"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{FilePattern}"" /></layout>
            </appender>";
        var harness = Configure(
            fix == null ? "" : $@"<fix value=""{fix}"" />",
            File("file") + File("sync"),
            refs: @"<appender-ref ref=""file"" />",
            rootRefs: @"<appender-ref ref=""sync"" />");

        var fileChild = harness.Appender<LowLatencyLog.Appender.BufferedFileAppender>("file");
        RunProducers(Producers, p => LogWithContext(harness.Logger("App.Ctx"), p));
        Assert.That(Async(harness).Flush(10_000), Is.True);
        harness.Shutdown();

        string[] sync = System.IO.File.ReadAllLines(harness.PathOf("sync.log"));
        string[] async = System.IO.File.ReadAllLines(harness.PathOf("file.log"));
        Assert.That(((LowLatencyLog.Forwarding.ICapturedEventAppender)fileChild).MayReadEventObjects, Is.False, "the child takes captured events");
        Assert.That(async.Count(l => l.Contains(" - m")), Is.EqualTo(Producers * PerProducer));
        Assert.That(async.OrderBy(l => l, StringComparer.Ordinal), Is.EqualTo(sync.OrderBy(l => l, StringComparer.Ordinal)));
        Assert.That(sync.Where(l => l.Contains("[producer-1]")), Has.All.Contains("tc-1|lc-1|ndc-1|"));
    }

    [Test]
    public void Siblings_ASynchronousAppenderAfterOursRendersExactlyAsWithoutOurs()
    {
        string syncOnly = $@"<log4net>{RecordingChild("sync", Pattern)}<root><level value=""ALL"" /><appender-ref ref=""sync"" /></root></log4net>";
        var baseline = Track(new Log4netHarness(syncOnly));
        RunProducers(Producers, p => LogWithContext(baseline.Logger("ctx"), p));

        // The narrowest capture: if the appender froze the shared event, the sibling would lose everything else.
        var harness = Configure(@"<fix value=""Message"" />", RecordingChild() + RecordingChild("sync", Pattern), rootRefs: @"<appender-ref ref=""sync"" />");
        RunProducers(Producers, p => LogWithContext(harness.Logger("ctx"), p));
        Assert.That(Async(harness).Flush(10_000), Is.True);

        string[] expected = Child(baseline, "sync").Lines.OrderBy(l => l, StringComparer.Ordinal).ToArray();
        string[] sibling = Child(harness, "sync").Lines.OrderBy(l => l, StringComparer.Ordinal).ToArray();
        Assert.That(sibling, Is.EqualTo(expected));
        AssertRenderedOnProducer(sibling);
        Assert.That(Child(harness).Lines, Has.Length.EqualTo(Producers * PerProducer));
    }

    [Test]
    public void FieldsNotCaptured_RenderEmpty_NeverTheWorkersOwnValues()
    {
        var harness = Configure(@"<fix value=""Message"" />", RecordingChild("child", "%thread|%property{tc}|%message"));
        RecordingAppender child = Child(harness);
        child.OnEvent = _ => ThreadContext.Properties["tc"] = "worker-value"; // what the worker's context holds

        harness.Logger().Info("first");
        harness.Logger().Info("second");
        Assert.That(Async(harness).Flush(10_000), Is.True);

        Assert.That(child.Lines, Is.EqualTo(new[] { "|(null)|first", "|(null)|second" }));
    }

    /// <summary>Logs with distinct thread, thread-context, logical-context, NDC and principal values per producer, then
    /// changes them, so anything read later or on another thread renders differently.</summary>
    private static void LogWithContext(ILog log, int p)
    {
        ThreadContext.Properties["tc"] = "tc-" + p;
        LogicalThreadContext.Properties["lc"] = "lc-" + p;
        Thread.CurrentPrincipal = new GenericPrincipal(new GenericIdentity("user-" + p), null);
        ThreadContext.Stacks["NDC"].Push("ndc-" + p);
        for (int i = 0; i < PerProducer; i++)
        {
            if (i % 5 == 0)
            {
                log.Error("m" + i, new InvalidOperationException("boom " + p + "/" + i));
            }
            else
            {
                log.Info("m" + i);
            }
        }

        ThreadContext.Stacks["NDC"].Push("pushed-later");
        ThreadContext.Properties["tc"] = "changed-later";
        LogicalThreadContext.Properties["lc"] = "changed-later";
        Thread.CurrentPrincipal = new GenericPrincipal(new GenericIdentity("changed-later"), null);
    }

    private static void AssertRenderedOnProducer(string[] lines)
    {
        for (int p = 0; p < Producers; p++)
        {
            string prefix = $"producer-{p}|tc-{p}|lc-{p}|ndc-{p}|m1|";
            string line = lines.Single(l => l.StartsWith(prefix, StringComparison.Ordinal));
            Assert.That(line, Does.Contain(nameof(LogWithContext)), "location");
            Assert.That(line, Does.Contain($"|user-{p}|"), "identity");
            Assert.That(lines.Where(l => l.StartsWith($"producer-{p}|") && l.Contains("|m5|")).Single(), Does.Contain("boom " + p + "/5"), "exception");
        }

        Assert.That(lines, Has.None.Contains("changed-later").And.None.Contains("pushed-later"));
    }
}
