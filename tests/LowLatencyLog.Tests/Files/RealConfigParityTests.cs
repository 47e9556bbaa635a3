using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using log4net.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// File shapes as they appear in real configurations, through <c>XmlConfigurator</c> from XML text, against log4net's
/// own <c>RollingFileAppender</c> on the same events: the same files (names, folders) with the same bytes. Both read the
/// same test clock through <c>dateTimeStrategy</c>, so date rolls cross midnight on cue.
/// </summary>
[NonParallelizable] // the shared clock is static
public sealed class RealConfigParityTests
{
    public static IEnumerable<TestCaseData> Shapes()
    {
        yield return new TestCaseData(@"<file value=""{dir}/logs/"" /><staticLogFileName value=""false"" /><rollingStyle value=""Date"" />
            <datePattern value=""yyyy-MM-dd'.log'"" />").SetName("a folder as file, the name in a quoted datePattern");
        yield return new TestCaseData(@"<file value=""{dir}/logs/"" /><staticLogFileName value=""false"" /><rollingStyle value=""Date"" />
            <datePattern value=""yyyy-MM-dd&quot;.log&quot;"" />").SetName("the same with &quot; quotes");
        yield return new TestCaseData(@"<file value=""{dir}/logs/"" /><staticLogFileName value=""false"" /><rollingStyle value=""Date"" />
            <datePattern value=""yyyy'/'MM'/'dd'.txt'"" />").SetName("a folder per day");
        yield return new TestCaseData(@"<file value=""{dir}/logs/app.log"" /><rollingStyle value=""Composite"" /><datePattern value="".yyyy-MM-dd"" />
            <maximumFileSize value=""2KB"" /><maxSizeRollBackups value=""5"" />").SetName("composite across midnight");
        yield return new TestCaseData(@"<file value=""{dir}/logs/app.log"" /><rollingStyle value=""Date"" /><datePattern value="".yyyy-MM-dd-HH"" />")
            .SetName("hourly, across midnight");
        yield return new TestCaseData(@"<param name=""File"" value=""{dir}/logs/app.log"" /><param name=""AppendToFile"" value=""true"" />
            <param name=""RollingStyle"" value=""Size"" /><param name=""MaximumFileSize"" value=""2KB"" /><param name=""MaxSizeRollBackups"" value=""3"" />")
            .SetName("old-style param settings");
        yield return new TestCaseData(@"<file type=""log4net.Util.PatternString"" value=""{dir}/logs/%property{service}-app.log"" /><rollingStyle value=""Size"" />
            <maximumFileSize value=""2KB"" /><maxSizeRollBackups value=""3"" />").SetName("a PatternString file name with a property");
        yield return new TestCaseData(@"<file value=""{dir}/logs/app.log"" /><appendToFile value=""false"" /><rollingStyle value=""Size"" />
            <maximumFileSize value=""2KB"" /><maxSizeRollBackups value=""2"" />").SetName("appendToFile=false over an existing file");
    }

    /// <summary>Date rolls on a local clock that changes to and from summer time (central European rules): an hour that
    /// never happens, and an hour that happens twice.</summary>
    public static IEnumerable<TestCaseData> DaylightSavingShapes()
    {
        foreach ((string change, DateTime startUtc) in new[] { ("spring forward", new DateTime(2026, 3, 28, 22, 0, 0)), ("fall back", new DateTime(2026, 10, 24, 21, 0, 0)) })
        {
            yield return new TestCaseData(@"<file value=""{dir}/logs/app.log"" /><rollingStyle value=""Date"" /><datePattern value="".yyyy-MM-dd-HH"" />", startUtc)
                .SetName($"hourly, across the {change}");
            yield return new TestCaseData(@"<file value=""{dir}/logs/app.log"" /><rollingStyle value=""Composite"" /><datePattern value="".yyyy-MM-dd-HH"" />
                <maximumFileSize value=""2KB"" /><maxSizeRollBackups value=""5"" />", startUtc).SetName($"composite hourly, across the {change}");
            yield return new TestCaseData(@"<file value=""{dir}/logs/"" /><staticLogFileName value=""false"" /><rollingStyle value=""Date"" />
                <datePattern value=""yyyy-MM-dd-HH'.log'"" />", startUtc).SetName($"hourly names, across the {change}");
        }
    }

    [TestCaseSource(nameof(DaylightSavingShapes))]
    public void TheShape_AcrossADaylightSavingChange_WritesTheSameFilesAsLog4net(string settings, DateTime startUtc)
    {
        Assert.That(CentralEurope.IsDaylightSavingTime(startUtc), Is.Not.EqualTo(CentralEurope.IsDaylightSavingTime(startUtc.AddHours(6))),
            "the six hours the test logs cross the change");
        SharedClock.Zone = CentralEurope;
        try
        {
            SharedClock.UtcStart = startUtc;
            TheShape_WritesTheSameFilesAsLog4net(settings);
        }
        finally
        {
            SharedClock.Zone = null;
        }
    }

    private static readonly TimeZoneInfo CentralEurope = TimeZoneInfo.CreateCustomTimeZone(
        "Test/CentralEurope", TimeSpan.FromHours(1), "Central Europe (test)", "CET", "CEST",
        new[]
        {
            TimeZoneInfo.AdjustmentRule.CreateAdjustmentRule(
                DateTime.MinValue.Date, DateTime.MaxValue.Date, TimeSpan.FromHours(1),
                TimeZoneInfo.TransitionTime.CreateFloatingDateRule(new DateTime(1, 1, 1, 2, 0, 0), 3, 5, DayOfWeek.Sunday),
                TimeZoneInfo.TransitionTime.CreateFloatingDateRule(new DateTime(1, 1, 1, 3, 0, 0), 10, 5, DayOfWeek.Sunday)),
        });

    [TestCaseSource(nameof(Shapes))]
    public void TheShape_WritesTheSameFilesAsLog4net(string settings)
    {
        log4net.GlobalContext.Properties["service"] = "orders";
        string root = Directory.CreateTempSubdirectory("lll-real-config-").FullName;
        try
        {
            foreach (string side in new[] { "theirs", "ours" })
            {
                Directory.CreateDirectory(Path.Combine(root, side, "logs"));
                File.WriteAllText(Path.Combine(root, side, "logs", "app.log"), "from before\n"); // for appendToFile
            }

            Run(root, "theirs", "log4net.Appender.RollingFileAppender", settings);
            Run(root, "ours", "LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog", settings);

            Dictionary<string, byte[]> theirs = Files(Path.Combine(root, "theirs"));
            Dictionary<string, byte[]> ours = Files(Path.Combine(root, "ours"));
            TestContext.Out.WriteLine("log4net: " + string.Join(", ", theirs.Keys.OrderBy(k => k)));
            Assert.That(theirs.Count, Is.GreaterThan(1), "the shape rolled in log4net");
            Assert.That(ours.Keys.OrderBy(k => k), Is.EqualTo(theirs.Keys.OrderBy(k => k)), "the same file names");
            foreach (string name in theirs.Keys)
            {
                Assert.That(ours[name], Is.EqualTo(theirs[name]), name);
            }
        }
        finally
        {
            Directory.Delete(root, recursive: true);
        }
    }

    private static void Run(string root, string side, string type, string settings)
    {
        SharedClock.Start(new DateTime(2026, 3, 28, 23, 0, 0));
        string dir = Path.Combine(root, side).Replace("\\", "/");
        using var harness = new Log4netHarness($@"<log4net>
            <appender name=""file"" type=""{type}"">
              {settings.Replace("{dir}", dir)}
              <dateTimeStrategy type=""LowLatencyLog.Tests.Files.RealConfigParityTests+SharedClock, LowLatencyLog.Tests"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
          </log4net>");
        for (int i = 0; i < 120; i++)
        {
            harness.Logger().Info($"event {i:D3} " + new string('x', 60));
            SharedClock.Advance(TimeSpan.FromMinutes(3)); // six hours in all, past midnight (or a summer-time change)
        }

        harness.Shutdown();
        Assert.That(harness.InternalErrors, Is.Empty, side);
    }

    private static Dictionary<string, byte[]> Files(string folder) =>
        Directory.GetFiles(folder, "*", SearchOption.AllDirectories)
            .ToDictionary(f => Path.GetRelativePath(folder, f), File.ReadAllBytes);

    /// <summary>The test's clock, read by both appenders.</summary>
    public sealed class SharedClock : RollingFileAppender.IDateTime
    {
        private static DateTime s_local;

        /// <summary>With a zone: the clock runs in UTC from <see cref="UtcStart"/> and reads as that zone's local time.</summary>
        public static TimeZoneInfo? Zone { get; set; }

        public static DateTime UtcStart { get; set; }

        private static DateTime Utc { get; set; }

        public static DateTime Now => Zone == null ? s_local : TimeZoneInfo.ConvertTimeFromUtc(Utc, Zone);

        DateTime RollingFileAppender.IDateTime.Now => Now;

        /// <summary>Starts the clock at <paramref name="local"/>, or with a zone at <see cref="UtcStart"/>.</summary>
        public static void Start(DateTime local)
        {
            s_local = local;
            Utc = UtcStart;
        }

        public static void Advance(TimeSpan step)
        {
            s_local += step;
            Utc += step;
        }
    }
}
