using System;
using System.Collections.Generic;
using System.IO;
using log4net.Core;
using log4net.Layout;
using log4net.Layout.Pattern;
using log4net.Util;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Layout;

/// <summary>
/// What the fast path does not render falls back to the layout (same bytes), and the internal debug line says which
/// path an appender took and why; the <c>fastLayout</c> setting turns it off and reports a bad value.
/// </summary>
[NonParallelizable] // internal debugging is process-wide
public sealed class FastLayoutFallbackTests
{
    [TestCase("%location %message%newline", "FullLocationPatternConverter")]
    [TestCase("%method: %message%newline", "MethodLocationPatternConverter")]
    [TestCase("%line %file %type %message%newline", "LineLocationPatternConverter")]
    [TestCase("%username %message%newline", "UserNamePatternConverter")]
    [TestCase("%identity %message%newline", "IdentityPatternConverter")]
    [TestCase("%stacktrace{2} %message%newline", "StackTracePatternConverter")]
    [TestCase("%exception{message} %message%newline", "ExceptionPatternConverter")]
    [TestCase("%properties %message%newline", "PropertyPatternConverter")]
    [TestCase("%date{o} %message%newline", "standard format")]
    [TestCase("%date{} %message%newline", "standard format")]
    [TestCase("%date{fffffffff} %message%newline", "not valid")]
    [TestCase("%date{'unterminated} %message%newline", "not valid")]
    public void AnUnsupportedConverter_FallsBack_SameBytes_AndTheDebugLineNamesIt(string pattern, string reason)
    {
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(2));
        PatternLayout layout = LayoutHarness.Pattern(pattern);
        byte[] slow = LayoutHarness.Render(layout, "false", null, events);
        string[] debug = DebugLines(() =>
        {
            byte[] fast = LayoutHarness.Render(layout, null, null, events, out bool usedFast);
            Assert.That(usedFast, Is.False);
            Assert.That(fast, Is.EqualTo(slow));
        });
        Assert.That(debug, Has.Some.Contains("rendering through the layout").And.Contains(reason));
    }

    [Test]
    public void AspNetConverters_AreNotInThisLog4netBuild_AndTheBytesStayTheSame()
    {
        // %aspnet-* exists only in log4net's .NET Framework build; here the parser leaves the text as it finds it.
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(4));
        PatternLayout layout = LayoutHarness.Pattern("%aspnet-request{ip} %aspnet-context %message%newline");
        Assert.That(LayoutHarness.Render(layout, null, null, events), Is.EqualTo(LayoutHarness.Render(layout, "false", null, events)));
    }

    [Test]
    public void AConverterRegisteredOnTheLayout_FallsBack_EvenUnderABuiltInName()
    {
        var layout = new PatternLayout { ConversionPattern = "%level %message%newline" };
        layout.AddConverter("level", typeof(ShoutingLevelConverter));
        layout.ActivateOptions();
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(8));
        byte[] slow = LayoutHarness.Render(layout, "false", null, events);
        string[] debug = DebugLines(() =>
        {
            byte[] fast = LayoutHarness.Render(layout, null, null, events, out bool usedFast);
            Assert.That(usedFast, Is.False);
            Assert.That(fast, Is.EqualTo(slow));
        });
        Assert.That(System.Text.Encoding.UTF8.GetString(slow), Does.Contain("<<"));
        Assert.That(debug, Has.Some.Contains("converters are registered on the layout (level)"));
    }

    [Test]
    public void AConverterRegisteredInTheConfig_FallsBack_AndTheFileMatches()
    {
        using var harness = new Log4netHarness("<log4net />");
        harness.Configure($@"<log4net>
  <appender name='Fast' type='LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog'>
    <file value='{{dir}}fast.log' />
    <layout type='log4net.Layout.PatternLayout'>
      <converter><name value='shout' /><type value='{typeof(ShoutingLevelConverter).AssemblyQualifiedName}' /></converter>
      <conversionPattern value='%date %shout %message%newline' />
    </layout>
  </appender>
  <appender name='Slow' type='LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog'>
    <file value='{{dir}}slow.log' />
    <fastLayout value='false' />
    <layout type='log4net.Layout.PatternLayout'>
      <converter><name value='shout' /><type value='{typeof(ShoutingLevelConverter).AssemblyQualifiedName}' /></converter>
      <conversionPattern value='%date %shout %message%newline' />
    </layout>
  </appender>
  <root><level value='ALL' /><appender-ref ref='Fast' /><appender-ref ref='Slow' /></root>
</log4net>");
        Assert.That(harness.Appender<BufferedFileAppender>("Fast").UsesFastLayout, Is.False);
        for (int i = 0; i < 50; i++)
        {
            harness.Logger().Info("event " + i);
        }

        harness.Shutdown();
        string fast = File.ReadAllText(harness.PathOf("fast.log"));
        Assert.That(fast, Does.Contain("<<INFO>> event 49"));
        Assert.That(fast, Is.EqualTo(File.ReadAllText(harness.PathOf("slow.log"))));
    }

    [Test]
    public void ALayoutSubclass_FallsBack()
    {
        var layout = new SubclassedLayout("%level %message%newline");
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(9));
        byte[] slow = LayoutHarness.Render(layout, "false", null, events);
        string[] debug = DebugLines(() =>
        {
            byte[] fast = LayoutHarness.Render(layout, null, null, events, out bool usedFast);
            Assert.That(usedFast, Is.False);
            Assert.That(fast, Is.EqualTo(slow));
        });
        Assert.That(debug, Has.Some.Contains(typeof(SubclassedLayout).FullName!));
    }

    [Test]
    public void ASupportedPattern_SaysSoInTheDebugLine()
    {
        string[] debug = DebugLines(() => LayoutHarness.Render(LayoutHarness.Pattern("%level %message%newline"), null, null, Array.Empty<LoggingEvent>()));
        Assert.That(debug, Has.Some.Contains("fast layout path for PatternLayout \"%level %message%newline\""));
    }

    [Test]
    public void FastLayoutFalse_RendersThroughTheLayout_AndSaysWhy()
    {
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(10));
        PatternLayout layout = LayoutHarness.Pattern("%date [%thread] %-5level %logger - %message%newline");
        byte[] fast = LayoutHarness.Render(layout, "true", null, events);
        string[] debug = DebugLines(() =>
        {
            byte[] slow = LayoutHarness.Render(layout, "FALSE", null, events, out bool usedFast);
            Assert.That(usedFast, Is.False);
            Assert.That(slow, Is.EqualTo(fast));
        });
        Assert.That(debug, Has.Some.Contains("fastLayout is false"));
    }

    [Test]
    public void ABadFastLayoutValue_IsReported_AndTheDefaultApplies()
    {
        using var harness = new Log4netHarness("<log4net />");
        harness.Configure(@"<log4net>
  <appender name='A' type='LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog'>
    <file value='{dir}a.log' />
    <fastLayout value='maybe' />
    <layout type='log4net.Layout.PatternLayout'><conversionPattern value='%level %message%newline' /></layout>
  </appender>
  <root><level value='ALL' /><appender-ref ref='A' /></root>
</log4net>");
        var appender = harness.Appender<BufferedFileAppender>("A");
        Assert.That(appender.UsesFastLayout, Is.True);
        Assert.That(harness.InternalErrors, Has.Some.Contains("'fastLayout'").And.Contains("\"maybe\"").And.Contains("default, True"));
        harness.Logger().Info("still written");
        harness.Shutdown();
        Assert.That(File.ReadAllText(harness.PathOf("a.log")), Is.EqualTo("INFO still written" + Environment.NewLine));
    }

    [Test]
    public void ALayoutReplacedAfterActivation_IsCompiledAgain()
    {
        PatternLayout first = LayoutHarness.Pattern("%level %message%newline");
        var stream = new RecordingStream();
        var appender = new BufferedFileAppender(new TestFiles(open: (path, append) => stream, exists: path => true))
        {
            File = "injected.log",
            AppendToFile = "false",
            Layout = first,
        };
        appender.ActivateOptions();
        LoggingEvent loggingEvent = LayoutHarness.Data(new DateTime(2024, 5, 6, 7, 8, 9, DateTimeKind.Utc), "m");
        appender.DoAppend(loggingEvent);
        Assert.That(appender.UsesFastLayout, Is.True);
        appender.Layout = LayoutHarness.Pattern("%location|%message%newline");
        appender.DoAppend(loggingEvent);
        Assert.That(appender.UsesFastLayout, Is.False);
        appender.Layout = LayoutHarness.Pattern("%utcdate{HH:mm:ss} %message%newline");
        appender.DoAppend(loggingEvent);
        Assert.That(appender.UsesFastLayout, Is.True);
        appender.Close();
        string nl = Environment.NewLine;
        Assert.That(System.Text.Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo($"INFO m{nl}?|m{nl}07:08:09 m{nl}".Replace("?|", LocationOf(loggingEvent) + "|")));
    }

    private static string LocationOf(LoggingEvent loggingEvent) => loggingEvent.LocationInformation?.FullInfo ?? "";

    private static string[] DebugLines(Action action)
    {
        var lines = new List<string>();
        void OnReceived(object? sender, LogReceivedEventArgs e)
        {
            lock (lines)
            {
                lines.Add(e.LogLog.Message);
            }
        }

        bool was = LogLog.InternalDebugging;
        bool quiet = LogLog.QuietMode;
        LogLog.InternalDebugging = true;
        LogLog.LogReceived += OnReceived;
        try
        {
            action();
        }
        finally
        {
            LogLog.LogReceived -= OnReceived;
            LogLog.InternalDebugging = was;
            LogLog.QuietMode = quiet;
        }

        lock (lines)
        {
            return lines.ToArray();
        }
    }

    /// <summary>A converter a user registers: the level in angle brackets.</summary>
    public sealed class ShoutingLevelConverter : PatternLayoutConverter
    {
        protected override void Convert(TextWriter writer, LoggingEvent loggingEvent) => writer.Write("<<" + loggingEvent.Level?.DisplayName + ">>");
    }

    private sealed class SubclassedLayout : PatternLayout
    {
        public SubclassedLayout(string pattern)
            : base(pattern)
        {
        }
    }
}
