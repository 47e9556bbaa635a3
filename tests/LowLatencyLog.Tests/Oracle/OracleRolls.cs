using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using log4net.Appender;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>
/// How a rolling child rolls beyond the size roll every rolling child has: by date or both (composite), the date
/// pattern, the file names (static or not, extension kept last, backups counted up), the clock (<see cref="OracleDateTime"/>).
/// </summary>
public sealed class RollSpec
{
    /// <summary>As written in the XML: Size, Date, Composite, in another case, or log4net's numbers.</summary>
    public string Style = "Size";

    /// <summary>Null: log4net's default (<c>.yyyy-MM-dd</c>).</summary>
    public string? DatePattern;

    public bool StaticName = true;
    public bool PreserveExtension;

    /// <summary>Null: log4net's default (-1, the newest backup is .1).</summary>
    public int? CountDirection;

    public bool ByDate => Style.ToUpperInvariant() is "DATE" or "COMPOSITE" or "2" or "3";

    // The assembly's own name: the oracle runs in the intercepted test assembly too.
    private static readonly string ClockXml =
        $"<dateTimeStrategy type=\"{typeof(OracleDateTime).FullName}, {typeof(OracleDateTime).Assembly.GetName().Name}\" />";

    /// <summary>The settings after <c>maximumFileSize</c> and <c>maxSizeRollBackups</c>.</summary>
    public string ToXml() =>
        $"<staticLogFileName value=\"{(StaticName ? "true" : "false")}\" />"
        + (DatePattern == null ? "" : $"<datePattern value=\"{FilterSpec.Escape(DatePattern)}\" />")
        + (PreserveExtension ? "<preserveLogFileNameExtension value=\"true\" />" : "")
        + (CountDirection == null ? "" : $"<countDirection value=\"{CountDirection.Value.ToString(CultureInfo.InvariantCulture)}\" />")
        + (ByDate ? ClockXml : "");
}

/// <summary>
/// The clock of the date rolls on both sides (log4net's <c>dateTimeStrategy</c>, which ours takes too): it reads the
/// time the case's clock steps set. Process-wide, as our appenders read it on their workers.
/// </summary>
public sealed class OracleDateTime : RollingFileAppender.IDateTime
{
    private static long s_ticks;

    /// <summary>The local time the clock gives, in ticks.</summary>
    internal static long Ticks
    {
        get => Volatile.Read(ref s_ticks);
        set => Volatile.Write(ref s_ticks, value);
    }

    public DateTime Now => new DateTime(Ticks, DateTimeKind.Local);
}

/// <summary>
/// Date and composite rolls: the roll settings of the rolling children, the clock's start and the steps that move it.
/// </summary>
/// <remarks>
/// log4net reads the clock for each event, ours once per batch (docs/decisions/0015): the clock moves only in a
/// clock step, after our async appenders have delivered and written every event taken before it (see
/// <see cref="OracleClockRun"/>), so both sides see each event at the same time.
/// </remarks>
internal static class OracleRolls
{
    private enum Period
    {
        Minute,
        Hour,
        HalfDay,
        Day,
        Month,
    }

    /// <summary>
    /// Date patterns of each granularity, with quoted literals. None whose text after its last dot reads as an int
    /// unless <see cref="WholeNumberPattern"/>: log4net (and ours) take it for a backup number at activation, and then
    /// roll over millions of backups.
    /// </summary>
    private static readonly (string Pattern, Period Period)[] Patterns =
    {
        (".yyyy-MM-dd-HH-mm", Period.Minute), ("'.'yyyyMMddHHmm", Period.Minute), ("_yyyy-MM-dd_HH-mm'.log'", Period.Minute),
        (".yyyy-MM-dd-HH", Period.Hour), ("'.'yyyyMMdd'T'HH", Period.Hour), (".yyyy-MM-dd-tt", Period.HalfDay),
        (".yyyy-MM-dd", Period.Day), (WholeNumberPattern, Period.Day), ("yyyy-MM-dd'.log'", Period.Day), (".yyyy-MM", Period.Month),
    };

    /// <summary>A date that reads as a backup number: only where no count of backups can take it (see <see cref="Roll"/>).</summary>
    private const string WholeNumberPattern = "'.'yyyyMMdd";

    /// <summary>Gives each rolling child its roll and, when one rolls by date, the case its clock and clock steps.</summary>
    public static void Generate(OracleCase oracleCase, Random random)
    {
        var children = oracleCase.Trees.Concat(oracleCase.Reconfigured ?? new List<TreeSpec>())
            .SelectMany(t => t.Children).Where(c => c.Kind == ChildKind.RollingBuffered).ToList();
        foreach (ChildSpec child in children)
        {
            child.Roll = Roll(child, reconfigured: oracleCase.Reconfigured != null, random);
        }

        var periods = children.Where(c => c.Roll is { ByDate: true }).Select(c => PeriodOf(c.Roll!.DatePattern)).Distinct().ToList();
        if (periods.Count == 0)
        {
            return;
        }

        // Whole milliseconds mostly: log4net's next check keeps the sub-millisecond ticks of the time it was computed
        // from, so a clock set exactly on a boundary would not always reach it.
        bool subMillisecond = random.Next(100) < 20;
        var clock = new DateTime(2001 + random.Next(37), 1 + random.Next(12), 1 + random.Next(28), 0, 0, 0, DateTimeKind.Local)
            .AddTicks(random.NextInt64(TimeSpan.TicksPerDay));
        clock = Ticks(clock, subMillisecond, random);
        oracleCase.ClockStart = clock.Ticks;

        // Anywhere before the last calls (one per repository, each writes a line). Ours writes a file's byte-order mark
        // and header when it opens it, log4net with its first event or at its close: a file opened in one period and
        // closed in the next without an event has then an earlier last write time on our side, and a second
        // configuration rolls it where log4net does not (a difference left as it is). So with a first configuration
        // writing either, the clock moves only after the reconfiguration.
        int last = oracleCase.Steps.Count - oracleCase.Trees.Count;
        int first = oracleCase.Reconfigured != null && oracleCase.Trees.Any(t => t.Children.Any(c => c.Header != null || c.Encoding?.StartsWith("utf-", StringComparison.Ordinal) == true))
            ? oracleCase.Steps.FindLastIndex(s => s.Kind == "reconfigure") + 1
            : 0;
        var positions = Enumerable.Range(0, random.Next(2, 7)).Select(_ => random.Next(first, last + 1)).OrderBy(p => p).ToList();
        var steps = new List<StepSpec>();
        foreach (int _ in positions)
        {
            clock = Next(clock, periods[random.Next(periods.Count)], subMillisecond, random);
            steps.Add(new StepSpec { Kind = "clock", Clock = clock.Ticks });
        }

        for (int i = positions.Count - 1; i >= 0; i--)
        {
            oracleCase.Steps.Insert(positions[i], steps[i]);
        }
    }

    private static RollSpec? Roll(ChildSpec child, bool reconfigured, Random random)
    {
        int style = random.Next(100);
        var roll = new RollSpec
        {
            Style = style < 25 ? "Size" : style < 55 ? "Date" : "Composite",
            StaticName = random.Next(100) < 60,
            PreserveExtension = random.Next(100) < 30,
            // Never negative: log4net reads "-1" with the configuring thread's culture (see maxSizeRollBackups).
            CountDirection = random.Next(100) < 45 ? new[] { 0, 1, 4 }[random.Next(3)] : null,
        };
        if (roll.Style == "Size" && random.Next(100) < 70)
        {
            return null; // the size roll as before: a static name, backups counted down
        }

        if (roll.Style != "Date")
        {
            // Several size rolls within a period, and in more than one.
            child.MaxSize = new[] { "100", "100", "1KB", "1KB", "3KB", child.MaxSize }[random.Next(6)];
        }

        int spelling = random.Next(100);
        roll.Style = spelling < 15 ? (roll.Style == "Size" ? "1" : roll.Style == "Date" ? "2" : "3") : spelling < 25 ? roll.Style.ToLowerInvariant() : roll.Style;
        roll.DatePattern = random.Next(100) < 15 ? null : Patterns[random.Next(Patterns.Length)].Pattern;
        if (roll.DatePattern == WholeNumberPattern && (reconfigured || child.Backups < 0 || roll.CountDirection != null))
        {
            // Its files read as backup number 20150302: taken at a later activation (another configuration, another
            // roll style) unless the backups are limited and counted down.
            roll.DatePattern = ".yyyy-MM-dd";
        }

        return roll;
    }

    /// <summary>A clock time as the case's description shows it.</summary>
    internal static string Show(long ticks) => new DateTime(ticks).ToString("yyyy-MM-dd HH:mm:ss.fffffff", CultureInfo.InvariantCulture);

    private static Period PeriodOf(string? pattern) => pattern == null ? Period.Day : Patterns.First(p => p.Pattern == pattern).Period;

    /// <summary>The next clock: on a boundary, just before one, within the period, across one or several, days on.</summary>
    private static DateTime Next(DateTime clock, Period period, bool subMillisecond, Random random)
    {
        DateTime boundary = NextStart(clock, period);
        DateTime after = NextStart(boundary, period);
        int pick = random.Next(100);
        DateTime next;
        if (pick < 20)
        {
            next = boundary; // the first event from here rolls
        }
        else if (pick < 30)
        {
            next = boundary.AddMilliseconds(-1); // none does
        }
        else if (pick < 45)
        {
            next = clock + (boundary - clock) * random.NextDouble();
        }
        else if (pick < 70)
        {
            next = boundary + (after - boundary) * random.NextDouble();
        }
        else if (pick < 88)
        {
            for (int k = random.Next(1, 6); k > 0; k--)
            {
                boundary = after;
                after = NextStart(after, period);
            }

            next = boundary + (after - boundary) * random.NextDouble();
        }
        else if (pick < 95)
        {
            next = clock.AddDays(random.Next(1, 40)).AddTicks(random.NextInt64(TimeSpan.TicksPerDay));
        }
        else
        {
            next = clock; // flushed, not moved
        }

        next = Ticks(next, subMillisecond && pick >= 20, random);
        return next < clock ? clock : next;
    }

    /// <summary>Whole milliseconds, or some ticks within the millisecond.</summary>
    private static DateTime Ticks(DateTime time, bool subMillisecond, Random random)
    {
        DateTime whole = time.AddTicks(-(time.Ticks % TimeSpan.TicksPerMillisecond));
        return subMillisecond ? whole.AddTicks(random.Next(1, (int)TimeSpan.TicksPerMillisecond)) : whole;
    }

    private static DateTime NextStart(DateTime t, Period period) => period switch
    {
        Period.Minute => new DateTime(t.Year, t.Month, t.Day, t.Hour, t.Minute, 0, t.Kind).AddMinutes(1),
        Period.Hour => new DateTime(t.Year, t.Month, t.Day, t.Hour, 0, 0, t.Kind).AddHours(1),
        Period.HalfDay => t.Date.AddHours(t.Hour < 12 ? 12 : 24),
        Period.Day => t.Date.AddDays(1),
        _ => new DateTime(t.Year, t.Month, 1, 0, 0, 0, t.Kind).AddMonths(1),
    };
}

/// <summary>
/// A side's clock during a run. A clock step first has our async appenders deliver and write every event taken so
/// far (log4net's appenders have: they are synchronous), then gives every file written since the last step the
/// clock's time, then moves the clock. A reconfiguration closes the appenders and gives the files their time before the
/// new ones start: log4net decides at activation whether to roll a file from its last write time, a real file time,
/// which so reads the same on both sides (the time of the clock when the file was last written).
/// </summary>
internal sealed class OracleClockRun
{
    private static readonly int FlushTimeout = 30_000;

    private readonly OracleCase _case;
    private readonly List<Log4netHarness> _harnesses;

    /// <summary>The times given (as read back, UTC ticks): a file that still has one was not written since.</summary>
    private readonly HashSet<long> _given = new HashSet<long>();

    public OracleClockRun(OracleCase oracleCase, List<Log4netHarness> harnesses)
    {
        _case = oracleCase;
        _harnesses = harnesses;
    }

    /// <summary>Before the repositories are configured: the clock at its start.</summary>
    public static void Start(OracleCase oracleCase) => OracleDateTime.Ticks = oracleCase.ClockStart;

    public void Advance(StepSpec step)
    {
        foreach (Log4netHarness harness in _harnesses)
        {
            foreach (AsyncForwardingAppender async in harness.Hierarchy.GetAppenders().OfType<AsyncForwardingAppender>())
            {
                if (!async.Flush(FlushTimeout))
                {
                    throw new InvalidOperationException($"our async appender [{async.Name}] did not flush within {FlushTimeout} ms");
                }
            }

            GiveTimes(harness.Directory);
        }

        OracleDateTime.Ticks = step.Clock;
    }

    /// <summary>Reconfigures <paramref name="repo"/>: with a clock, its appenders closed and its files' times given first.</summary>
    public void Reconfigure(int repo, string xml)
    {
        if (_case.ClockStart != 0)
        {
            // What the configurator does first; the files' times are given between the close and the activation.
            _harnesses[repo].Hierarchy.ResetConfiguration();
            GiveTimes(_harnesses[repo].Directory);
        }

        _harnesses[repo].Configure(xml);
    }

    private void GiveTimes(string directory)
    {
        DateTime now = new DateTime(OracleDateTime.Ticks, DateTimeKind.Local);
        foreach (string path in Directory.GetFiles(directory, "*", SearchOption.AllDirectories))
        {
            if (!_given.Contains(File.GetLastWriteTimeUtc(path).Ticks))
            {
                File.SetLastWriteTime(path, now);
                _given.Add(File.GetLastWriteTimeUtc(path).Ticks);
            }
        }
    }
}
