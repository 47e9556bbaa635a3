namespace LowLatencyLog.Files;

/// <summary>How a rolling file appender rolls (log4net's <c>RollingFileAppender.RollingMode</c> names).</summary>
internal enum RollingMode
{
    /// <summary>Once, when the appender starts (appendToFile becomes false).</summary>
    Once,

    /// <summary>When the file reaches maximumFileSize.</summary>
    Size,

    /// <summary>When the time crosses a boundary of datePattern.</summary>
    Date,

    /// <summary>Date, and by size within a date.</summary>
    Composite,
}

/// <summary>The smallest period a date pattern can tell apart: how often a date roll may happen.</summary>
internal enum RollPoint
{
    Invalid = -1,
    TopOfMinute = 0,
    TopOfHour = 1,
    HalfDay = 2,
    TopOfDay = 3,
    TopOfWeek = 4,
    TopOfMonth = 5,
}

/// <summary>Settings of <see cref="RollingFiles"/>, read and validated by the appender.</summary>
internal sealed class RollingOptions
{
    public RollingMode Mode { get; set; } = RollingMode.Composite;

    public long MaxFileSize { get; set; } = 10 * 1024 * 1024;

    public int MaxSizeRollBackups { get; set; }

    public string DatePattern { get; set; } = ".yyyy-MM-dd";

    public bool StaticLogFileName { get; set; } = true;

    public bool PreserveLogFileNameExtension { get; set; }

    public int CountDirection { get; set; } = -1;

    public bool RollDate => Mode == RollingMode.Date || Mode == RollingMode.Composite;

    public bool RollSize => Mode == RollingMode.Size || Mode == RollingMode.Composite;
}
