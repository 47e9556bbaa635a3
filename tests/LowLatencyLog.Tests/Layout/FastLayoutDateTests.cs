using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;
using log4net.Core;
using log4net.Layout;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Layout;

/// <summary>
/// Dates with injected time stamps: runs of events across second, millisecond, midnight and year boundaries (the date
/// cache is reused within a second and rebuilt after), and the DST changes of several time zones, set as the process's
/// local zone for the test (the machine's own zone is often UTC, which has none).
/// </summary>
[NonParallelizable] // the local time zone is process-wide
public sealed class FastLayoutDateTests
{
    private const string DatePatterns =
        "%date|%date{ABSOLUTE}|%date{DATE}|%utcdate|%utcdate{DATE}|%d{yyyy-MM-dd HH:mm:ss,fff}|%d{HH:mm:ss.FFF}|" +
        "%date{yy-M-d h:mm:ss.fffffff tt}|%date{HH:mm:ss zzz K}|%utcdate{HH:mm:ss.ff zzz K}|%date{dddd MMMM ss.F}|%timestamp%n";

    private static readonly string[] Zones = { "America/New_York", "Australia/Lord_Howe", "Europe/London", "Asia/Kolkata", "UTC" };

    [Test]
    public void RunsAcrossBoundaries_SameBytes()
    {
        var starts = new List<DateTime>
        {
            new DateTime(2024, 12, 31, 23, 59, 59, DateTimeKind.Utc),
            new DateTime(2023, 12, 31, 23, 59, 58, 990, DateTimeKind.Utc),
            new DateTime(2024, 2, 28, 23, 59, 59, 999, DateTimeKind.Utc),
            new DateTime(1999, 12, 31, 23, 59, 59, DateTimeKind.Utc),
            new DateTime(2025, 6, 30, 11, 59, 59, 500, DateTimeKind.Utc),
        };
        var random = new Random(17);
        for (int i = 0; i < 20; i++)
        {
            starts.Add(LayoutHarness.RandomInstant(random));
        }

        long[] steps = { 1, TimeSpan.TicksPerMillisecond - 1, TimeSpan.TicksPerMillisecond, 999 * TimeSpan.TicksPerMillisecond, TimeSpan.TicksPerSecond, 3_333_333 };
        var events = new List<LoggingEvent>();
        foreach (DateTime start in starts)
        {
            foreach (long step in steps)
            {
                for (int k = -3; k < 12; k++)
                {
                    events.Add(LayoutHarness.Data(start.AddTicks(k * step)));
                }
            }
        }

        AssertSame(events);
    }

    [Test]
    public void DstChanges_InSeveralZones_SameBytes()
    {
        string? original = Environment.GetEnvironmentVariable("TZ");
        int transitions = 0;
        try
        {
            foreach (string zone in Zones)
            {
                Environment.SetEnvironmentVariable("TZ", zone);
                TimeZoneInfo.ClearCachedData();
                var events = new List<LoggingEvent>();
                foreach (DateTime change in Transitions(2019, 2027))
                {
                    transitions++;
                    foreach (long delta in new[] { 0L, -1, 1, -TimeSpan.TicksPerMillisecond, TimeSpan.TicksPerMillisecond, -TimeSpan.TicksPerSecond, TimeSpan.TicksPerSecond, -TimeSpan.TicksPerSecond / 2, TimeSpan.TicksPerHour, -TimeSpan.TicksPerHour })
                    {
                        events.Add(LayoutHarness.Data(change.AddTicks(delta)));
                    }

                    // A run through the change, as a busy log would pass it.
                    for (int k = -5; k <= 5; k++)
                    {
                        events.Add(LayoutHarness.Data(change.AddMilliseconds(k * 300)));
                    }
                }

                var random = new Random(zone.Length);
                for (int i = 0; i < 200; i++)
                {
                    events.Add(LayoutHarness.Data(LayoutHarness.RandomInstant(random)));
                }

                AssertSame(events);
            }
        }
        finally
        {
            Environment.SetEnvironmentVariable("TZ", original);
            TimeZoneInfo.ClearCachedData();
        }

        // Whether the zones could be loaded depends on the machine's time zone data; the local zone is checked anyway.
        TestContext.Out.WriteLine($"{transitions} DST transitions checked");
    }

    [Test]
    public void AnOffsetOnTheFirstDayOfYearOne_AsDotNetWritesItAfterADateOrAlone_SameBytes()
    {
        // .NET writes "zzz" after a day, month or year with the time's own offset, but in a format with none before it
        // a time on 1 January of year 1 gets today's offset; in year 1 New York's offset is its local mean time, not today's.
        string? original = Environment.GetEnvironmentVariable("TZ");
        var events = new List<LoggingEvent>
        {
            LayoutHarness.Data(default),
            LayoutHarness.Data(new DateTime(1, 1, 1, 12, 0, 0, DateTimeKind.Utc)),
            LayoutHarness.Data(new DateTime(1, 1, 2, 12, 0, 0, DateTimeKind.Utc)),
            LayoutHarness.Data(new DateTime(2025, 3, 9, 12, 0, 0, DateTimeKind.Utc)),
        };
        string[] patterns =
        {
            "%utcdate{yyyy-MM-dd HH:mm:ss zzz}%n", "%date{yyyy-MM-dd HH:mm:ss zzz}%n", "%date{HH:mm:ss zzz}%n",
            "%date{zz HH:mm d zzz K}%n", "%utcdate{HH:mm z}%n", "%date{MMM z}%n",
        };
        try
        {
            foreach (string zone in new[] { "America/New_York", "Asia/Kolkata" })
            {
                Environment.SetEnvironmentVariable("TZ", zone);
                TimeZoneInfo.ClearCachedData();
                foreach (string pattern in patterns)
                {
                    PatternLayout layout = LayoutHarness.Pattern(pattern);
                    byte[] slow = LayoutHarness.Render(layout, "false", null, events);
                    byte[] fast = LayoutHarness.Render(layout, null, null, events, out bool usedFast);
                    Assert.That(usedFast, Is.True, pattern);
                    Assert.That(fast, Is.EqualTo(slow), $"pattern {pattern} in {TimeZoneInfo.Local.Id}: " + LayoutHarness.Describe(slow, fast, Encoding.UTF8));
                }
            }
        }
        finally
        {
            Environment.SetEnvironmentVariable("TZ", original);
            TimeZoneInfo.ClearCachedData();
        }
    }

    /// <summary>The UTC instants at which the local zone's offset changes, to the tick.</summary>
    private static IEnumerable<DateTime> Transitions(int fromYear, int toYear)
    {
        DateTime t = new DateTime(fromYear, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        DateTime end = new DateTime(toYear, 1, 1, 0, 0, 0, DateTimeKind.Utc);
        TimeSpan offset = Offset(t);
        while (t < end)
        {
            DateTime next = t.AddHours(1);
            if (Offset(next) != offset)
            {
                DateTime low = t;
                DateTime high = next;
                while (high.Ticks - low.Ticks > 1)
                {
                    var middle = new DateTime(low.Ticks + (high.Ticks - low.Ticks) / 2, DateTimeKind.Utc);
                    if (Offset(middle) == offset)
                    {
                        low = middle;
                    }
                    else
                    {
                        high = middle;
                    }
                }

                yield return high;
                offset = Offset(next);
            }

            t = next;
        }
    }

    private static TimeSpan Offset(DateTime utc) => utc.ToLocalTime() - utc;

    private static void AssertSame(List<LoggingEvent> events)
    {
        foreach (string pattern in DatePatterns.Split('|').Select(p => p + "%n").Append(DatePatterns))
        {
            PatternLayout layout = LayoutHarness.Pattern(pattern);
            byte[] slow = LayoutHarness.Render(layout, "false", null, events);
            byte[] fast = LayoutHarness.Render(layout, null, null, events, out bool usedFast);
            Assert.That(usedFast, Is.True, pattern);
            if (!fast.SequenceEqual(slow))
            {
                Assert.Fail($"pattern {pattern} in {TimeZoneInfo.Local.Id}: " + LayoutHarness.Describe(slow, fast, Encoding.UTF8));
            }
        }
    }
}
