using System;
using log4net.Appender;
using LowLatencyLog.Configuration;
using LowLatencyLog.Files;
using LowLatencyLog.Log4netInternals;

namespace LowLatencyLog.Appender;

/// <summary>
/// A <see cref="BufferedFileAppender"/> that rolls its file as log4net's <see cref="RollingFileAppender"/> does, with
/// the same settings, the same file names and the same contents after each roll, but without the system-wide mutex
/// log4net takes on every append.
/// </summary>
/// <remarks>
/// <para>A roll happens before an event, never inside one: the buffered events and the footer are written to the old
/// file, files are renamed or deleted as log4net would, and the new file starts with the header. Within a batch, each
/// event is checked, so a batch that crosses the size limit is split across the two files exactly where log4net would
/// split single events.</para>
/// <para>Like log4net, a date roll happens at the first event after the boundary, and the date checked is the time of
/// the append, not the event's time stamp.</para>
/// </remarks>
public class RollingBufferedFileAppender : BufferedFileAppender
{
    private string? _rollingStyle;

    /// <summary>When to roll: <c>Once</c> (at start), <c>Size</c>, <c>Date</c> or <c>Composite</c> (date, and size within a date).</summary>
    /// <remarks>
    /// Default: <c>Composite</c>. Accepted: <c>Once</c>, <c>Size</c>, <c>Date</c>, <c>Composite</c> (case-insensitive),
    /// or their numbers 0 to 3, as log4net takes them.
    /// As in log4net, setting <c>Once</c> also sets <see cref="BufferedFileAppender.AppendToFile"/> to <c>false</c>; an
    /// <c>appendToFile</c> given after it in the configuration wins.
    /// </remarks>
    public string? RollingStyle
    {
        get => _rollingStyle;
        set
        {
            _rollingStyle = value;
            // A bad value is reported at activation, not here.
            if (RollingSettings.ReadMode(value, _ => { }) == RollingMode.Once)
            {
                AppendToFile = "false";
            }
        }
    }

    /// <summary>The size at which the file rolls: a number of bytes, optionally followed by KB, MB or GB.</summary>
    /// <remarks>Default: <c>10MB</c> (10485760 bytes). Accepted: any whole number (0 or less rolls before every event,
    /// as log4net), with an optional KB, MB or GB; text after the unit is ignored, as log4net ignores it.</remarks>
    public string? MaximumFileSize { get; set; }

    /// <summary>The same as <see cref="MaximumFileSize"/>, under the name of log4net's numeric property.</summary>
    /// <remarks>Default: 10485760. Accepted: as <see cref="MaximumFileSize"/>; if both are given, this one wins.</remarks>
    public string? MaxFileSize { get; set; }

    /// <summary>How many size backups are kept per date period: <c>0</c> keeps none (the file is truncated at each size
    /// roll), a negative number keeps all.</summary>
    /// <remarks>Default: <c>0</c>, as log4net. Accepted: any whole number.</remarks>
    public string? MaxSizeRollBackups { get; set; }

    /// <summary>The date pattern appended to file names, which also sets how often a date roll happens.</summary>
    /// <remarks>
    /// Default: <c>.yyyy-MM-dd</c> (daily). Accepted: a <see cref="DateTime"/> format whose output changes at least once
    /// a month (formatted with the invariant culture). Checked only when <see cref="RollingStyle"/> rolls by date
    /// (<c>Date</c>, <c>Composite</c>); <c>Size</c> and <c>Once</c> do not use it, as in log4net.
    /// </remarks>
    public string? DatePattern { get; set; }

    /// <summary>Whether the current file always has the configured name (<c>true</c>), or carries the date and number
    /// of the period it belongs to (<c>false</c>).</summary>
    /// <remarks>Default: <c>true</c>. Accepted: <c>true</c>, <c>false</c>.</remarks>
    public string? StaticLogFileName { get; set; }

    /// <summary>Whether backup numbers and dates go before the file's extension (<c>app.1.log</c>) rather than after
    /// it (<c>app.log.1</c>).</summary>
    /// <remarks>Default: <c>false</c>. Accepted: <c>true</c>, <c>false</c>.</remarks>
    public string? PreserveLogFileNameExtension { get; set; }

    /// <summary>Backup numbering: negative, the newest backup is <c>.1</c> and the others are renamed at each roll;
    /// zero or positive, backups keep their number and the newest has the highest.</summary>
    /// <remarks>Default: <c>-1</c>. Accepted: any whole number.</remarks>
    public string? CountDirection { get; set; }

    /// <summary>Where date rolls read the time (setting <c>dateTimeStrategy</c>, as on log4net's
    /// <c>RollingFileAppender</c>): <c>log4net.Appender.RollingFileAppender+UniversalDateTime</c> rolls and names the
    /// files by UTC, <c>...+LocalDateTime</c> by local time, or any other <see cref="RollingFileAppender.IDateTime"/>.</summary>
    /// <remarks>Default: local time.</remarks>
    public RollingFileAppender.IDateTime? DateTimeStrategy { get; set; }

    /// <summary>An appender that writes to the disk and reads the local time.</summary>
    public RollingBufferedFileAppender()
        : this(DiskFileSystem.Instance, SystemClock.Instance)
    {
    }

    /// <summary>An appender that opens its files through <paramref name="files"/> and reads the time from
    /// <paramref name="clock"/> (unless <see cref="DateTimeStrategy"/> is set).</summary>
    internal RollingBufferedFileAppender(IFileSystem files, IClock clock)
        : base(files, clock)
    {
    }

    private protected override RollingPolicy CreateRollingPolicy(Action<string> report, IClock clock) =>
        new RollingPolicy(
            RollingSettings.Read(
                RollingStyle, MaximumFileSize, MaxFileSize, MaxSizeRollBackups, DatePattern, StaticLogFileName,
                PreserveLogFileNameExtension, CountDirection, report),
            DateTimeStrategy is { } strategy ? new StrategyClock(strategy) : clock,
            universalFileTimes: Log4netTypes.IsUniversalDateTime(DateTimeStrategy));

    /// <summary>log4net's RollingFileAppender takes a rolling lock: so does this appender under the shared models.</summary>
    private protected override bool Rolls => true;

    /// <summary>A log4net date-time strategy as the rolling files' clock.</summary>
    private sealed class StrategyClock : IClock
    {
        private readonly RollingFileAppender.IDateTime _strategy;

        public StrategyClock(RollingFileAppender.IDateTime strategy) => _strategy = strategy;

        public DateTime Now => _strategy.Now;
    }
}
