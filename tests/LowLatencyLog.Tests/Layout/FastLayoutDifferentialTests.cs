using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using log4net.Core;
using log4net.Layout;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Layout;

/// <summary>
/// The fast layout path against the layout itself: for generated patterns and varied events, the appender's bytes with
/// <c>fastLayout</c> on must equal its bytes with it off, in UTF-8 and UTF-16.
/// </summary>
[Category("Oracle")]
public sealed class FastLayoutDifferentialTests
{
    private static readonly string[] Converters =
    {
        "%date", "%d", "%date{ISO8601}", "%date{iso8601}", "%date{ABSOLUTE}", "%date{DATE}", "%date{yyyy-MM-dd HH:mm:ss,fff}",
        "%d{HH:mm:ss.fff}", "%d{HH:mm:ss.SSS}", "%date{dd MMM yyyy HH:mm:ss.FFF}", "%date{yy/M/d h:m:s tt}", "%date{'T'HH\\:mm 'at' s.FFFFFFF}",
        "%date{dddd, MMMM d yyy hh t ffff}", "%date{yyyyy-MM-ddTHH:mm:ss.fffffffK}", "%date{ss.F}", "%date{%h}",
        "%utcdate", "%utcdate{ABSOLUTE}", "%utcdate{HH:mm:ss.ffff zzz}", "%date{HH:mm zzz}",
        "%timestamp", "%r", "%thread", "%t", "%level", "%p", "%logger", "%c", "%logger{1}", "%c{2}", "%logger{5}", "%logger{0}",
        "%logger{x}", "%message", "%m", "%newline", "%n", "%n{DOS}", "%newline{UNIX}", "%exception", "%property{aKey}", "%P{num}",
        "%X{missing}", "%mdc{aKey}", "%property{NDC}", "%ndc", "%x", "%appdomain", "%a",
    };

    private static readonly string[] Literals = { " ", " - ", "[", "]", "é中😀", ":", "%%", "{}", "}", "\\", "text" };

    private static readonly string[] Modifiers = { "-5", "5", ".3", "10.20", "-20.30", ".1", "0", "-0", "1", "40", "-3.3", ".60" };

    public static IEnumerable<TestCaseData> Batches()
    {
        for (int batch = 0; batch < 10; batch++)
        {
            yield return new TestCaseData(batch).SetName($"GeneratedPatterns_SameBytes(batch {batch})");
        }
    }

    [TestCaseSource(nameof(Batches))]
    public void GeneratedPatterns_SameBytes(int batch)
    {
        var random = new Random(1000 + batch);
        List<LoggingEvent> events = LayoutHarness.Variety(random);
        for (int p = 0; p < 30; p++)
        {
            string pattern = RandomPattern(random);
            AssertSame(pattern, events, expectFast: true);
        }
    }

    [TestCase("%date [%thread] %-5level %logger - %message%newline")]
    [TestCase("%d %p %c{1} [%t] %X{aKey} %m %ex%n")]
    [TestCase("%d %p %c{1} [%t] %m %exception%n")]
    [TestCase("%m%n")]
    [TestCase("%message %exception%newline")]
    [TestCase("%m%exception")]
    [TestCase("[%m] %exception tail%n")]
    [TestCase("%message %exception")]
    [TestCase("[%message]%newline")]
    [TestCase("%message")]
    [TestCase("%message -- a literal longer than eight bytes --%newline")]
    [TestCase("%message →%newline")]
    [TestCase("%message %exception -- after the exception --%newline")]
    [TestCase("%message \uD83D%exception\uDE00%newline")] // a pair when the exception is empty, two halves otherwise
    [TestCase("prefix: %m")]
    [TestCase("%m%n{DOS}")]
    [TestCase("%m%m%n")]
    [TestCase("%d{HH:mm:ss.fff} %m%n")]
    [TestCase("%timestamp [%thread] %level %logger %ndc - %message%newline")]
    [TestCase("%-5level %20.30logger %-10.10thread %5.5message|%n")]
    [TestCase("%5n%-7%%message%n")]
    public void CommonPatterns_SameBytes(string pattern)
    {
        AssertSame(pattern, LayoutHarness.Variety(new Random(7)), expectFast: !pattern.Contains("%ex%"));
    }

    [Test]
    public void SimpleLayout_SameBytes()
    {
        var layout = new SimpleLayout();
        layout.ActivateOptions();
        AssertSame(layout, LayoutHarness.Variety(new Random(3)), "SimpleLayout", expectFast: true);
    }

    [Test]
    public void ABatch_SameBytes_AsSingleEvents()
    {
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(11));
        PatternLayout layout = LayoutHarness.Pattern("%date [%thread] %-5level %logger - %message%newline");
        byte[] slow = LayoutHarness.Render(layout, "false", null, events);
        byte[] fast = LayoutHarness.Render(layout, null, null, events, out bool usedFast, batch: true);
        Assert.That(usedFast, Is.True);
        Assert.That(fast, Is.EqualTo(slow));
    }

    [Test]
    public void HeaderAndFooter_StayOnTheLayout()
    {
        PatternLayout layout = LayoutHarness.Pattern("%level %message%newline");
        layout.Header = "header é%n";
        layout.Footer = "footer 😀\n";
        List<LoggingEvent> events = LayoutHarness.Variety(new Random(5));
        byte[] slow = LayoutHarness.Render(layout, "false", "utf-16", events);
        byte[] fast = LayoutHarness.Render(layout, "true", "utf-16", events, out bool usedFast);
        Assert.That(usedFast, Is.True);
        Assert.That(fast, Is.EqualTo(slow));
        Assert.That(Encoding.Unicode.GetString(fast), Does.Contain("header é").And.Contain("footer 😀"));
    }

    [Test]
    public void IgnoresException_ChangedAfterActivation_IsFollowed()
    {
        LoggingEvent failed = LayoutHarness.Live("failed", Level.Error, exception: LayoutHarness.Thrown());
        byte[] Run(string fast)
        {
            PatternLayout layout = LayoutHarness.Pattern("%message%newline");
            var stream = new LowLatencyLog.Tests.Support.RecordingStream();
            var appender = LayoutHarness.NewAppender(layout, fast, null, stream);
            appender.ActivateOptions();
            appender.DoAppend(failed); // the layout ignores exceptions: the appender writes the exception text after it
            layout.IgnoresException = false; // now the layout claims to write it: nothing follows the line
            appender.DoAppend(failed);
            appender.Close();
            return stream.ToArray();
        }

        byte[] slow = Run("false");
        byte[] fast = Run("true");
        Assert.That(fast, Is.EqualTo(slow));
        string text = Encoding.UTF8.GetString(fast);
        string exception = failed.GetExceptionString()!;
        Assert.That(text.Split(exception).Length - 1, Is.EqualTo(1), "the exception text, once: after the first line only");
    }

    [Test]
    public void APatternSetAfterActivation_IsFollowedOnceTheLayoutIsActivated()
    {
        // Setting the pattern changes nothing until ActivateOptions builds the new chain; then the new pattern applies.
        static void Change(PatternLayout layout, Action<string> log)
        {
            layout.ConversionPattern = "[%message]%newline";
            log("two");
            layout.ActivateOptions();
            log("three");
        }

        byte[] fast = RenderAroundAChange("true", Change);
        Assert.That(fast, Is.EqualTo(RenderAroundAChange("false", Change)));
        Assert.That(Encoding.UTF8.GetString(fast).Replace("\r", ""), Is.EqualTo("WARN one\nWARN two\n[three]\n"));
    }

    [Test]
    public void AConverterAddedAfterActivation_FallsBackOnceTheLayoutIsActivated()
    {
        static void Change(PatternLayout layout, Action<string> log)
        {
            layout.AddConverter("level", typeof(FastLayoutFallbackTests.ShoutingLevelConverter));
            layout.ActivateOptions();
            log("two");
        }

        byte[] fast = RenderAroundAChange("true", Change);
        Assert.That(fast, Is.EqualTo(RenderAroundAChange("false", Change)));
        Assert.That(Encoding.UTF8.GetString(fast), Does.Contain("<<WARN>> two"));
    }

    /// <summary>"%level %message%newline" through an activated appender: event "one", then whatever the change does.</summary>
    private static byte[] RenderAroundAChange(string fast, Action<PatternLayout, Action<string>> change)
    {
        PatternLayout layout = LayoutHarness.Pattern("%level %message%newline");
        var stream = new LowLatencyLog.Tests.Support.RecordingStream();
        var appender = LayoutHarness.NewAppender(layout, fast, null, stream);
        appender.ActivateOptions();
        appender.DoAppend(LayoutHarness.Live("one"));
        change(layout, message => appender.DoAppend(LayoutHarness.Live(message)));
        appender.Close();
        return stream.ToArray();
    }

    [TestCase("th-TH")]
    [TestCase("tr-TR")]
    [TestCase("")]
    public void LoggerPrecision_CutsAsLog4netDoes_InTheCurrentCulture(string cultureName)
    {
        // log4net finds the dots with culture-sensitive searches: in Thai "x.y".LastIndexOf(".") is not 1, so it
        // writes other text (and for some names throws, which drops the event); the fast path must do the same.
        var events = new List<LoggingEvent>();
        foreach (string logger in new[] { "x.y", "App.Orders.Service", "a.b.c.d", "Root", "trailing.dot.", "App.Üñí.Çödé", "x.y" })
        {
            events.Add(LayoutHarness.Live("m", Level.Info, logger));
        }

        System.Globalization.CultureInfo original = System.Globalization.CultureInfo.CurrentCulture;
        try
        {
            System.Globalization.CultureInfo.CurrentCulture = new System.Globalization.CultureInfo(cultureName);
            foreach (string pattern in new[] { "%c{2} %m%n", "%logger{1}|%n", "%-12.8logger{3}|%n" })
            {
                // One event at a time: an event log4net cannot render is dropped, and the rest must still match.
                foreach (LoggingEvent loggingEvent in events)
                {
                    PatternLayout layout = LayoutHarness.Pattern(pattern);
                    byte[] slow = LayoutHarness.Render(layout, "false", null, new[] { loggingEvent });
                    byte[] fast = LayoutHarness.Render(layout, "true", null, new[] { loggingEvent });
                    Assert.That(fast, Is.EqualTo(slow), $"{pattern} for {loggingEvent.LoggerName} in '{cultureName}'");
                }

                PatternLayout all = LayoutHarness.Pattern(pattern);
                Assert.That(LayoutHarness.Render(all, "true", null, events), Is.EqualTo(LayoutHarness.Render(all, "false", null, events)), pattern);
            }
        }
        finally
        {
            System.Globalization.CultureInfo.CurrentCulture = original;
        }
    }

    internal static string RandomPattern(Random random)
    {
        var pattern = new StringBuilder();
        int parts = random.Next(1, 9);
        for (int i = 0; i < parts; i++)
        {
            if (random.Next(4) == 0)
            {
                pattern.Append(Literals[random.Next(Literals.Length)]);
                continue;
            }

            string converter = Converters[random.Next(Converters.Length)];
            if (random.Next(3) == 0)
            {
                converter = "%" + Modifiers[random.Next(Modifiers.Length)] + converter.Substring(1);
            }

            pattern.Append(converter);
        }

        if (random.Next(2) == 0)
        {
            pattern.Append("%newline");
        }

        return pattern.ToString();
    }

    private static void AssertSame(string pattern, IReadOnlyList<LoggingEvent> events, bool expectFast) =>
        AssertSame(LayoutHarness.Pattern(pattern), events, pattern, expectFast);

    private static void AssertSame(ILayout layout, IReadOnlyList<LoggingEvent> events, string name, bool expectFast)
    {
        foreach (string encoding in new[] { "utf-8", "utf-16" })
        {
            byte[] slow = LayoutHarness.Render(layout, "false", encoding, events);
            byte[] fast = LayoutHarness.Render(layout, null, encoding, events, out bool usedFast);
            if (expectFast)
            {
                Assert.That(usedFast, Is.True, $"pattern {name} should take the fast path");
            }

            if (!fast.SequenceEqual(slow))
            {
                Assert.Fail($"pattern {name} ({encoding}): " + LayoutHarness.Describe(slow, fast, Encoding.GetEncoding(encoding)));
            }
        }
    }
}
