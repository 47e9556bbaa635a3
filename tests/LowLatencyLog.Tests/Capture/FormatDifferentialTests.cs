using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Text;
using log4net;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// Async 13: a <c>*Format</c> message formatted by the async appenders' capture (into the slot's text, not a new
/// string) is written byte for byte as log4net writes it synchronously: generated format strings (alignment, format
/// specifiers, escaped braces, bad formats), argument types, cultures, and arguments changed right after the call. A
/// log4net <c>FileAppender</c> beside the async appender writes the reference; behind it, the library's file appender
/// (which writes the slot's text) and log4net's own <c>FileAppender</c> (which gets the rebuilt event).
/// </summary>
[Category("Oracle")]
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class FormatDifferentialTests
{
    private readonly AsyncAppenderKind _kind;

    public FormatDifferentialTests(AsyncAppenderKind kind) => _kind = kind;

    [Test]
    public void GeneratedFormatCalls_AreWrittenAsLog4netWritesThem([Values("Auto", "Message, ThreadName, Exception", "Partial", "All")] string fix)
    {
        using var harness = new Log4netHarness(Config(fix));
        ILog log = harness.Logger("format");
        var random = new Random(20261126);
        for (int i = 0; i < 300; i++)
        {
            LogOne(log, random);
        }

        harness.Shutdown();
        byte[] expected = File.ReadAllBytes(harness.PathOf("sync.log"));
        Assert.That(expected.Length, Is.GreaterThan(10_000), "the reference file holds the calls");
        Assert.That(File.ReadAllBytes(harness.PathOf("fast.log")), Is.EqualTo(expected), "the library's file appender behind the async appender");
        Assert.That(File.ReadAllBytes(harness.PathOf("rebuilt.log")), Is.EqualTo(expected), "log4net's FileAppender behind the async appender");
    }

    [Test]
    public void AnArgumentChangedRightAfterTheCall_IsWrittenAsItWasAtTheCall()
    {
        using var harness = new Log4netHarness(Config("Auto"));
        ILog log = harness.Logger("mutable");
        var builder = new StringBuilder("before");
        var items = new List<int> { 1 };
        var counter = new Counter();
        for (int i = 0; i < 100; i++)
        {
            log.InfoFormat("{0} | {1} | {2}", builder, items.Count, counter);
            builder.Append('!');
            items.Add(i);
            counter.Value++;
        }

        harness.Shutdown();
        byte[] expected = File.ReadAllBytes(harness.PathOf("sync.log"));
        Assert.That(Encoding.UTF8.GetString(expected), Does.StartWith("before | 1 | counter 0" + Environment.NewLine));
        Assert.That(File.ReadAllBytes(harness.PathOf("fast.log")), Is.EqualTo(expected));
        Assert.That(File.ReadAllBytes(harness.PathOf("rebuilt.log")), Is.EqualTo(expected));
    }

    [Test]
    public void ANullProvider_FormatsWithTheCallingThreadsCulture()
    {
        using var harness = new Log4netHarness(Config("Auto"));
        ILog log = harness.Logger("culture");
        CultureInfo original = CultureInfo.CurrentCulture;
        try
        {
            foreach (string name in new[] { "de-DE", "fr-CH", "en-US", "ar-SA", "" })
            {
                CultureInfo.CurrentCulture = CultureInfo.GetCultureInfo(name);
                log.InfoFormat((IFormatProvider?)null, "{0:N2} {1} {2:D}", 1234567.891m, 3.5, new DateTime(2026, 3, 29, 1, 30, 0));
            }
        }
        finally
        {
            CultureInfo.CurrentCulture = original;
        }

        harness.Shutdown();
        byte[] expected = File.ReadAllBytes(harness.PathOf("sync.log"));
        Assert.That(File.ReadAllBytes(harness.PathOf("fast.log")), Is.EqualTo(expected));
        Assert.That(File.ReadAllBytes(harness.PathOf("rebuilt.log")), Is.EqualTo(expected));
    }

    private string Config(string fix) => $@"<log4net>
        <appender name=""sync"" type=""log4net.Appender.FileAppender"">
          <file value=""{{dir}}sync.log"" />
          <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
        </appender>
        <appender name=""async"" type=""{_kind.TypeAttribute}"">
          <fix value=""{fix}"" />
          <appender-ref ref=""fast"" />
          <appender-ref ref=""rebuilt"" />
        </appender>
        <appender name=""fast"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
          <file value=""{{dir}}fast.log"" />
          <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
        </appender>
        <appender name=""rebuilt"" type=""log4net.Appender.FileAppender"">
          <file value=""{{dir}}rebuilt.log"" />
          <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
        </appender>
        <root><level value=""ALL"" /><appender-ref ref=""sync"" /><appender-ref ref=""async"" /></root>
      </log4net>";

    private static readonly string[] Cultures = { "", "de-DE", "fr-FR", "ja-JP", "ar-SA", "tr-TR", "hi-IN" };

    private static readonly string[] Literals = { "", "order ", " at ", "é", "日本 ", "{{", "}}", "=", "\t", " 😀 " };

    private static readonly string[] NumberFormats = { "N2", "X8", "E3", "0.00", "#,##0", "P1", "C", "R", "G17", "D5", "F0", "" };

    private static readonly string[] DateFormats = { "yyyy-MM-dd", "O", "D", "t", "dddd MMM", "HH:mm:ss.fff", "" };

    private static void LogOne(ILog log, Random random)
    {
        int count = random.Next(1, 5);
        var args = new object?[count];
        var format = new StringBuilder();
        for (int i = 0; i < count; i++)
        {
            args[i] = Argument(random);
        }

        int items = random.Next(1, 6);
        for (int i = 0; i < items; i++)
        {
            format.Append(Literals[random.Next(Literals.Length)]);
            int index = random.Next(100) < 3 ? count + 1 : random.Next(count); // now and then an index past the arguments
            format.Append('{').Append(index);
            if (random.Next(4) == 0)
            {
                format.Append(',').Append(random.Next(-12, 13));
            }

            if (random.Next(2) == 0)
            {
                string[] formats = args[Math.Min(index, count - 1)] is DateTime or DateTimeOffset ? DateFormats : NumberFormats;
                format.Append(':').Append(formats[random.Next(formats.Length)]);
            }

            format.Append('}');
        }

        if (random.Next(50) == 0)
        {
            format.Append("{0"); // unbalanced: log4net writes its own error text
        }

        string culture = Cultures[random.Next(Cultures.Length)];
        if (culture.Length == 0)
        {
            log.InfoFormat(format.ToString(), args); // log4net's InfoFormat formats with the invariant culture
        }
        else
        {
            log.InfoFormat(CultureInfo.GetCultureInfo(culture), format.ToString(), args);
        }
    }

    private static object? Argument(Random random) => random.Next(15) switch
    {
        0 => random.Next(int.MinValue, int.MaxValue),
        1 => (long)random.Next() * random.Next(),
        2 => random.NextDouble() * Math.Pow(10, random.Next(-5, 20)),
        3 => new[] { double.NaN, -0.0, double.PositiveInfinity, 1e-300 }[random.Next(4)],
        4 => (decimal)random.Next() / 1000m,
        5 => "text " + random.Next(1000),
        6 => new DateTime(2000 + random.Next(50), random.Next(1, 13), random.Next(1, 28), random.Next(24), random.Next(60), random.Next(60), DateTimeKind.Unspecified),
        7 => new DateTimeOffset(2026, 3, 29, 2, 30, 0, TimeSpan.FromHours(random.Next(-12, 13))),
        8 => TimeSpan.FromMilliseconds(random.Next()),
        9 => new Guid(random.Next(), 1, 2, 3, 4, 5, 6, 7, 8, 9, 10),
        10 => (DayOfWeek)random.Next(7),
        11 => (FileAccess)random.Next(4),
        12 => random.Next(2) == 0,
        13 => (char)random.Next(32, 0x3000),
        _ => null,
    };

    private sealed class Counter
    {
        public int Value;

        public override string ToString() => "counter " + Value.ToString(CultureInfo.InvariantCulture);
    }
}
