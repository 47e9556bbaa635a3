using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Layout;
using LowLatencyLog.Tests.Support;
using LowLatencyLog.Text;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Layout;

/// <summary>
/// The fast path allocates nothing per event for a string message: bytes allocated on this thread around thousands of
/// renders (after a warm-up pass over the same events) must be zero, for the renderer alone and for the whole appender.
/// </summary>
[NameCuttingCulture] // %logger{n} and %type{n}: log4net's cut throws under Thai
public sealed class FastLayoutAllocationTests
{
    private const int Loops = 5000;

    public static IEnumerable<TestCaseData> Patterns()
    {
        yield return new TestCaseData("%date [%thread] %-5level %logger - %message%newline").SetArgDisplayNames("standard");
        yield return new TestCaseData("%d %p %c{1} [%t] %X{aKey} %m %exception%n").SetArgDisplayNames("LOG4J2-930 full");
        yield return new TestCaseData("%d{HH:mm:ss.fff} %m%n").SetArgDisplayNames("custom date");
        yield return new TestCaseData("%date{yyyy-MM-dd'T'HH:mm:ss.FFFFFFF} %date{dddd, dd MMM yy h:mm tt} %m%n").SetArgDisplayNames("custom date names");
        yield return new TestCaseData("%date{ABSOLUTE} %utcdate{DATE} %r %-5level %20.30logger %-10.10thread %ndc %appdomain %P{aKey} %m%n").SetArgDisplayNames("everything else");
        yield return new TestCaseData("%m%n").SetArgDisplayNames("message");
    }

    [TestCaseSource(nameof(Patterns))]
    public void Renderer_AllocatesNothingPerEvent(string pattern)
    {
        CompiledLayout compiled = LayoutCompiler.TryCompile(LayoutHarness.Pattern(pattern), out string reason)
            ?? throw new AssertionException("not compiled: " + reason);
        AssertRendersWithoutAllocating(compiled, Events());
    }

    [TestCaseSource(nameof(Patterns))]
    public void Appender_AllocatesNothingPerEvent(string pattern)
    {
        var appender = new BufferedFileAppender(new TestFiles(open: (path, append) => Stream.Null, exists: path => true))
        {
            File = "injected.log",
            AppendToFile = "false",
            FlushInterval = "0",
            Layout = LayoutHarness.Pattern(pattern),
        };
        AssertAppendsWithoutAllocating(appender);
    }

    [Test]
    public void RollingAppender_AllocatesNothingPerEvent()
    {
        // Its checks before each batch (a date roll) and each event (the size limit) run on every event here.
        using var harness = new Log4netHarness("<log4net />");
        var appender = new RollingBufferedFileAppender
        {
            File = harness.PathOf("rolling/app.log"),
            FlushInterval = "0",
            Layout = LayoutHarness.Pattern("%date [%thread] %-5level %logger - %message%newline"),
        };
        AssertAppendsWithoutAllocating(appender);
        Assert.That(File.ReadAllLines(harness.PathOf("rolling/app.log")), Has.Length.EqualTo(AppendedEvents));
    }

    [Test]
    public void LoggerPrecision_WithNamesLog4netCutsByCulture_AllocatesNothingPerEvent()
    {
        // Names other than printable ASCII are cut by log4net's own (substring-making) calls; the cuts are remembered.
        CompiledLayout compiled = LayoutCompiler.TryCompile(LayoutHarness.Pattern("%c{1} %logger{2} %m%n"), out _)!;
        string[] loggers = { "App.Üñí.Çödé", "Zahlung.Prüfung", "App.Orders.Service", "订单.服务" };
        AssertRendersWithoutAllocating(compiled, Enumerable.Range(0, 64)
            .Select(i => LayoutHarness.Data(new DateTime(2024, 3, 9, 12, 0, 0, DateTimeKind.Utc), message: "m" + i, logger: loggers[i % loggers.Length]))
            .ToArray());
    }

    [Test]
    public void PaddedLevel_WithEveryLevelLog4netDefines_AllocatesNothingPerEvent()
    {
        Level[] levels = typeof(Level).GetFields(System.Reflection.BindingFlags.Public | System.Reflection.BindingFlags.Static)
            .Where(f => f.FieldType == typeof(Level)).Select(f => (Level)f.GetValue(null)!).ToArray();
        Assert.That(levels, Has.Length.GreaterThan(16));
        CompiledLayout compiled = LayoutCompiler.TryCompile(LayoutHarness.Pattern("%-5level %m%n"), out _)!;
        AssertRendersWithoutAllocating(compiled, levels
            .Select(level => LayoutHarness.Data(new DateTime(2024, 3, 9, 12, 0, 0, DateTimeKind.Utc), message: "m", level: level))
            .ToArray());
    }

    [Test]
    public void SimpleLayout_AllocatesNothingPerEvent()
    {
        var layout = new SimpleLayout();
        layout.ActivateOptions();
        CompiledLayout compiled = LayoutCompiler.TryCompile(layout, out _)!;
        var writer = new EventBufferWriter(new UTF8Encoding(false), 64 * 1024) { Stream = Stream.Null };
        LoggingEvent[] events = Events();
        for (int i = 0; i < events.Length; i++)
        {
            compiled.Render(writer, events[i]);
            writer.EndEvent();
        }

        long allocated = Allocations.LeastOfThreeRounds(() =>
        {
            for (int i = 0; i < Loops; i++)
            {
                compiled.Render(writer, events[i % events.Length]);
                writer.EndEvent();
            }

            writer.WriteCompleteEvents();
        });
        Assert.That(allocated, Is.EqualTo(0), $"{allocated} bytes over {Loops} events");
    }

    /// <summary>What <see cref="AssertAppendsWithoutAllocating"/> appends: a warm-up pass, then three rounds.</summary>
    private static int AppendedEvents => Events().Length * 2 + 3 * Loops;

    /// <summary>Appends the events over and over, then closes the appender: after a warm-up pass, nothing may be allocated.</summary>
    private static void AssertAppendsWithoutAllocating(BufferedFileAppender appender)
    {
        appender.ActivateOptions();
        Assert.That(appender.UsesFastLayout, Is.True);
        LoggingEvent[] events = Events();
        void Run(int count)
        {
            for (int i = 0; i < count; i++)
            {
                appender.DoAppend(events[i % events.Length]);
            }
        }

        Run(events.Length * 2);
        long allocated = Allocations.LeastOfThreeRounds(() => Run(Loops));
        appender.Close();
        Assert.That(allocated, Is.EqualTo(0), $"{allocated} bytes over {Loops} events");
    }

    /// <summary>Renders the events over and over into one writer: after a warm-up pass, nothing may be allocated.</summary>
    private static void AssertRendersWithoutAllocating(CompiledLayout compiled, LoggingEvent[] events)
    {
        var writer = new EventBufferWriter(new UTF8Encoding(false), 64 * 1024) { Stream = Stream.Null };
        void Run(int count)
        {
            for (int i = 0; i < count; i++)
            {
                compiled.Render(writer, events[i % events.Length]);
                writer.EndEvent();
            }

            writer.WriteCompleteEvents();
        }

        Run(events.Length * 2); // warm-up: JIT, lazily built event fields, caches and buffers
        long allocated = Allocations.LeastOfThreeRounds(() => Run(Loops));
        Assert.That(allocated, Is.EqualTo(0), $"{allocated} bytes over {Loops} events");
    }

    /// <summary>1,024 events 1.7 ms apart (so the run crosses seconds, and a minute), string messages, several loggers.</summary>
    private static LoggingEvent[] Events()
    {
        var start = new DateTime(2024, 3, 9, 23, 59, 58, 123, DateTimeKind.Utc);
        string[] loggers = { "App.Orders.Service", "App.Billing", "Root" };
        return Enumerable.Range(0, 1024)
            .Select(i => LayoutHarness.Data(
                start.AddTicks(i * 17_000L),
                message: $"order {i * 7919} accepted for customer {i % 97} in region eu-west",
                logger: loggers[i % loggers.Length],
                properties: new Dictionary<string, object?> { ["aKey"] = "value", ["num"] = i, ["NDC"] = "ctx" }))
            .ToArray();
    }
}
