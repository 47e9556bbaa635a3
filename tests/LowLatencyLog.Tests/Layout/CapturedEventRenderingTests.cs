using System;
using System.Collections.Generic;
using System.Linq;
using log4net.Core;
using log4net.Filter;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Capture;
using LowLatencyLog.Forwarding;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Layout;

/// <summary>
/// The file appenders take an async appender's captured events as they are (no log4net event rebuilt for them). What
/// they write must be the bytes log4net's own layout writes for the event the async appender would otherwise rebuild,
/// for every capture (<c>fix</c>) and pattern; and the batch must be treated as <c>DoAppend(LoggingEvent[])</c> treats
/// it: threshold, closed appender, no file, failing events, filters and subclasses (which take rebuilt events).
/// </summary>
public sealed class CapturedEventRenderingTests
{
    private static readonly FixFlags[] Captures =
    {
        CapturedEvent.SlotFlags,
        CapturedEvent.SlotFlags | FixFlags.Properties,
        FixFlags.None,
        FixFlags.Message,
        FixFlags.Partial,
        FixFlags.All,
    };

    public static IEnumerable<TestCaseData> Batches()
    {
        for (int batch = 0; batch < 10; batch++)
        {
            yield return new TestCaseData(batch).SetName($"GeneratedPatterns_CapturedEventsWriteTheirRebuiltEventsBytes(batch {batch})");
        }
    }

    [TestCaseSource(nameof(Batches))]
    public void GeneratedPatterns_CapturedEventsWriteTheirRebuiltEventsBytes(int batch)
    {
        var random = new Random(2000 + batch);
        List<LoggingEvent> events = LayoutHarness.Variety(random);
        for (int p = 0; p < 30; p++)
        {
            string pattern = FastLayoutDifferentialTests.RandomPattern(random);
            AssertSame(LayoutHarness.Pattern(pattern), events, Captures[random.Next(Captures.Length)], pattern);
        }
    }

    [TestCase("%date [%thread] %-5level %logger - %message%newline")]
    [TestCase("%d %p %c{1} [%t] %X{aKey} %m %exception%n")]
    [TestCase("%timestamp [%thread] %level %logger %ndc - %message%newline")]
    [TestCase("%-5level %20.30logger %-10.10thread %5.5message|%appdomain|%P{num}|%n")]
    [TestCase("%utcdate{ABSOLUTE} %date{yyyy-MM-dd HH:mm:ss,fff} %m%n")]
    [TestCase("%message%newline")]
    [TestCase("[%m]%n")]
    [TestCase("%m")]
    [TestCase("%m %exception%n")]
    [TestCase("%m%exception")]
    [TestCase("[%m] %exception tail%n")]
    public void CommonPatterns_EveryCapture_SameBytes(string pattern)
    {
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(17));
        foreach (FixFlags capture in Captures)
        {
            AssertSame(LayoutHarness.Pattern(pattern), events, capture, pattern);
        }
    }

    [Test]
    public void SimpleLayout_AndALayoutThatIgnoresExceptions_SameBytes()
    {
        var simple = new SimpleLayout();
        simple.ActivateOptions();
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(19));
        foreach (FixFlags capture in Captures)
        {
            AssertSame(simple, events, capture, "SimpleLayout");
            AssertSame(LayoutHarness.Pattern("%level %message%newline"), events, capture, "no %exception");
        }
    }

    [TestCase("%message%newline")]
    [TestCase("[%level] %message%newline")]
    public void AnEventSubclassThatRewritesItsMessage_IsWrittenAsLog4netWritesIt(string pattern)
    {
        // log4net's %message calls the virtual WriteRenderedMessage; a subclass that masks the text must stay masked,
        // on the fast path from the event and from what an async appender captured.
        var events = new List<LoggingEvent> { new MaskedEvent("card 4111111111111111"), LayoutHarness.Live("plain") };
        PatternLayout layout = LayoutHarness.Pattern(pattern);
        byte[] slow = LayoutHarness.Render(layout, "false", null, events);

        Assert.That(LayoutHarness.Render(layout, "true", null, events), Is.EqualTo(slow));
        Assert.That(LayoutHarness.RenderCaptured(layout, null, Capture(events, CapturedEvent.SlotFlags), out bool taken), Is.EqualTo(slow));
        Assert.That(taken, Is.True);
        string text = System.Text.Encoding.UTF8.GetString(slow);
        Assert.That(text, Does.Contain("MASKED").And.Contain("plain").And.Not.Contain("4111"));
    }

    private sealed class MaskedEvent : LoggingEvent
    {
        public MaskedEvent(string message)
            : base(typeof(MaskedEvent), LayoutHarness.Repository, "App.Payments", Level.Info, message, null)
        {
        }

        public override void WriteRenderedMessage(System.IO.TextWriter writer) => writer.Write("MASKED");
    }

    [Test]
    public void Threshold_AppliesAsForLog4netEvents()
    {
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(23));
        CapturedEvent[] captured = Capture(events, CapturedEvent.SlotFlags);
        PatternLayout layout = LayoutHarness.Pattern("%level %message%newline");

        byte[] expected = LayoutHarness.Render(layout, "false", null, Rebuild(captured), batch: true, configure: a => a.Threshold = Level.Warn);
        byte[] actual = LayoutHarness.RenderCaptured(layout, null, captured, out bool taken, a => a.Threshold = Level.Warn);

        Assert.That(taken, Is.True);
        Assert.That(actual, Is.EqualTo(expected));
        Assert.That(System.Text.Encoding.UTF8.GetString(actual), Does.Not.StartWith("DEBUG").And.Contain("WARN"));
    }

    [Test]
    public void WhatNeedsLog4netEvents_IsLeftToTheRebuiltPath_AndNothingIsWritten()
    {
        CapturedEvent[] captured = Capture(LayoutHarness.Variety(new Random(29)), CapturedEvent.SlotFlags);
        PatternLayout layout = LayoutHarness.Pattern("%message%newline");

        byte[] filtered = LayoutHarness.RenderCaptured(layout, null, captured, out bool takenWithFilter, a => a.AddFilter(new LevelMatchFilter { LevelToMatch = Level.Info }));
        byte[] slowLayout = LayoutHarness.RenderCaptured(layout, null, captured, out bool takenWithoutFastLayout, fast: "false");
        byte[] unsupported = LayoutHarness.RenderCaptured(LayoutHarness.Pattern("%location %m%n"), null, captured, out bool takenUnsupported);
        byte[] subclass = LayoutHarness.RenderCaptured(layout, null, captured, out bool takenBySubclass, create: files => new DerivedFileAppender(files));

        Assert.That(new[] { takenWithFilter, takenWithoutFastLayout, takenUnsupported, takenBySubclass }, Is.All.False);
        Assert.That(new[] { filtered, slowLayout, unsupported, subclass }, Is.All.Empty);
    }

    /// <summary>Behind an async appender, whose worker keeps where the child takes its batches: a layout replaced and a
    /// filter added or cleared after activation hold from the next batch on, as in log4net's <c>DoAppend</c>.</summary>
    [Test]
    public void BehindAnAsyncAppender_ALayoutReplacedOrAFilterAddedLater_HoldsFromTheNextBatch()
    {
        using var harness = new Log4netHarness(@"<log4net>
            <appender name='async' type='LowLatencyLog.Appender.BoundedQueueAsyncAppender, LowLatencyLog'><appender-ref ref='file' /></appender>
            <appender name='file' type='LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog'>
              <file value='{dir}app.log' />
              <layout type='log4net.Layout.PatternLayout'><conversionPattern value='%message%newline' /></layout>
            </appender>
            <root><level value='ALL' /><appender-ref ref='async' /></root>
          </log4net>");
        var async = harness.Appender<AsyncForwardingAppender>("async");
        var file = harness.Appender<BufferedFileAppender>("file");
        log4net.ILog log = harness.Logger();
        void Round(string name)
        {
            log.Info(name + " info");
            log.Warn(name + " warn");
            Assert.That(async.Flush(20_000), Is.True);
        }

        Round("first");
        file.Layout = LayoutHarness.Pattern("[%level] %message%newline");
        Round("replaced");
        file.AddFilter(new LevelMatchFilter { LevelToMatch = Level.Warn, AcceptOnMatch = false });
        Round("filtered");
        file.ClearFilters();
        Round("cleared");
        harness.Shutdown();

        string nl = Environment.NewLine;
        Assert.That(System.IO.File.ReadAllText(harness.PathOf("app.log")), Is.EqualTo(
            $"first info{nl}first warn{nl}[INFO] replaced info{nl}[WARN] replaced warn{nl}[INFO] filtered info{nl}[INFO] cleared info{nl}[WARN] cleared warn{nl}"));
        Assert.That(harness.InternalErrors, Is.Empty);
    }

    [Test]
    public void ClosedAppender_ReportsAsLog4netDoes_AndWritesNothing()
    {
        var errors = new RecordingErrorHandler();
        var stream = new RecordingStream();
        BufferedFileAppender appender = LayoutHarness.NewAppender(LayoutHarness.Pattern("%m%n"), null, null, stream);
        appender.ErrorHandler = errors;
        appender.ActivateOptions();
        appender.Close();
        int length = stream.ToArray().Length;

        bool taken = ((ICapturedEventAppender)appender).Target?.TryAppend(Capture(LayoutHarness.Variety(new Random(31)), CapturedEvent.SlotFlags), 5) == true;

        Assert.That(taken, Is.True);
        Assert.That(errors.Errors, Has.One.EqualTo("Attempted to append to closed appender named [layout-test]."));
        Assert.That(stream.ToArray(), Has.Length.EqualTo(length));
    }

    [Test]
    public void NoFile_ReportedOnce_PerBatch()
    {
        var errors = new RecordingErrorHandler();
        var appender = new BufferedFileAppender { Name = "no-file", Layout = LayoutHarness.Pattern("%m%n"), ErrorHandler = errors };
        appender.ActivateOptions();

        bool taken = ((ICapturedEventAppender)appender).Target?.TryAppend(Capture(LayoutHarness.Variety(new Random(37)), CapturedEvent.SlotFlags), 10) == true;

        Assert.That(taken, Is.True);
        Assert.That(errors.Errors, Has.One.EqualTo("No file is open for the appender named [no-file]."));
    }

    [Test]
    public void AValueThatFailsToRender_WritesLog4netsErrorText_AsOnTheRebuiltPath()
    {
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(41)).Take(6).ToList();
        events.Insert(3, LayoutHarness.Data(new DateTime(2024, 1, 2, 3, 4, 5, DateTimeKind.Utc), "bad one",
            properties: new Dictionary<string, object?> { ["aKey"] = new ThrowingValue() }));
        CapturedEvent[] captured = Capture(events, CapturedEvent.SlotFlags | FixFlags.Properties);
        PatternLayout layout = LayoutHarness.Pattern("%property{aKey} %message%newline");

        byte[] expected = LayoutHarness.Render(layout, "false", null, Rebuild(captured), batch: true);
        byte[] actual = LayoutHarness.RenderCaptured(layout, null, captured, out bool taken);

        Assert.That(taken, Is.True);
        // The frames inside <stackTrace> are the renderer's callers, which differ between the two paths and with what
        // the JIT inlined by then; everything around them is compared byte for byte.
        Assert.That(WithoutFrames(actual), Is.EqualTo(WithoutFrames(expected)));
        Assert.That(System.Text.Encoding.UTF8.GetString(actual), Does.Contain("log4net.Error").And.Contain("cannot render").And.Contain("bad one"));
    }

    [Test]
    public void LoggingBackIntoTheAppenderWhileItRendersCapturedEvents_IsDropped_AsLog4netDropsIt()
    {
        var stream = new RecordingStream();
        BufferedFileAppender appender = LayoutHarness.NewAppender(LayoutHarness.Pattern("%property{aKey} %message%newline"), null, null, stream);
        appender.ActivateOptions();
        var reentrant = new ReentrantValue(appender);
        LoggingEvent source = LayoutHarness.Data(new DateTime(2024, 1, 2, 3, 4, 5, DateTimeKind.Utc), "outer",
            properties: new Dictionary<string, object?> { ["aKey"] = reentrant });

        bool taken = ((ICapturedEventAppender)appender).Target?.TryAppend(new[] { CapturedEvent.Capture(source, FixFlags.All) }, 1) == true;
        appender.Close();

        Assert.That(taken, Is.True);
        Assert.That(reentrant.Called, Is.True);
        Assert.That(System.Text.Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo("value outer" + Environment.NewLine));
    }

    private static void AssertSame(ILayout layout, IReadOnlyList<LoggingEvent> events, FixFlags capture, string name)
    {
        CapturedEvent[] captured = Capture(events, capture);
        foreach (string encoding in new[] { "utf-8", "utf-16" })
        {
            byte[] expected = LayoutHarness.Render(layout, "false", encoding, Rebuild(captured), batch: true);
            byte[] actual = LayoutHarness.RenderCaptured(layout, encoding, captured, out bool taken);
            Assert.That(taken, Is.True, $"{name}: the captured events should be taken as they are");
            if (!actual.AsSpan().SequenceEqual(expected))
            {
                Assert.Fail($"pattern {name}, capture {capture}, {encoding}: {LayoutHarness.Describe(expected, actual, System.Text.Encoding.GetEncoding(encoding))}");
            }
        }
    }

    private static CapturedEvent[] Capture(IEnumerable<LoggingEvent> events, FixFlags flags) =>
        events.Select(e => CapturedEvent.Capture(e, flags)).ToArray();

    private static LoggingEvent[] Rebuild(CapturedEvent[] captured) => captured.Select(c => c.Rebuild()).ToArray();

    private sealed class DerivedFileAppender : BufferedFileAppender
    {
        public DerivedFileAppender(LowLatencyLog.Files.IFileSystem files)
            : base(files)
        {
        }
    }


    private static string WithoutFrames(byte[] text) =>
        System.Text.RegularExpressions.Regex.Replace(System.Text.Encoding.UTF8.GetString(text), "<stackTrace>.*?</stackTrace>", "<stackTrace/>",
            System.Text.RegularExpressions.RegexOptions.Singleline);

    private sealed class ThrowingValue
    {
        public override string ToString() => throw new InvalidOperationException("cannot render");
    }

    /// <summary>Logs straight into the appender while it renders this value, on the same thread.</summary>
    private sealed class ReentrantValue
    {
        private readonly BufferedFileAppender _appender;

        public ReentrantValue(BufferedFileAppender appender) => _appender = appender;

        public bool Called { get; private set; }

        public override string ToString()
        {
            Called = true;
            _appender.DoAppend(LayoutHarness.Data(new DateTime(2024, 1, 2, 3, 4, 6, DateTimeKind.Utc), "inner"));
            return "value";
        }
    }
}
