using System;

namespace LowLatencyLog.Files;

/// <summary>Where a rolling file appender reads the time; replaced in tests to cross date boundaries at will.</summary>
internal interface IClock
{
    /// <summary>The current local time, as <see cref="DateTime.Now"/>.</summary>
    DateTime Now { get; }
}

/// <summary>The system's local time, as log4net's default <c>LocalDateTime</c> strategy.</summary>
internal sealed class SystemClock : IClock
{
    public static readonly SystemClock Instance = new SystemClock();

    private SystemClock()
    {
    }

    public DateTime Now => DateTime.Now;
}
