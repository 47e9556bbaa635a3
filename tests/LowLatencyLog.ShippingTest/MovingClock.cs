using System;
using System.Globalization;
using log4net.Appender;

namespace LowLatencyLog.ShippingTest;

/// <summary>
/// A <c>dateTimeStrategy</c> whose time runs <see cref="Speed"/> times faster than the wall clock from a fixed start, so
/// that a minute-pattern date roll happens every few seconds. The time is a function of the wall clock since
/// <see cref="Epoch"/>, so a restarted application goes on from where the last one stopped, never back.
/// </summary>
public sealed class MovingClock : RollingFileAppender.IDateTime
{
    private static readonly DateTime Start = new DateTime(2031, 1, 1, 0, 0, 0, DateTimeKind.Local);

    /// <summary>The wall-clock instant the moving time starts from (UTC); set before log4net is configured.</summary>
    public static DateTime Epoch { get; set; } = DateTime.UtcNow;

    /// <summary>How many times faster than the wall clock the time runs.</summary>
    public static double Speed { get; set; } = 1;

    /// <summary>If set, the time stands still at the value it had when the application started (no date rolls).</summary>
    public static bool Hold { get; set; }

    private static readonly DateTime Started = DateTime.UtcNow;

    public DateTime Now => Start.AddTicks((long)(((Hold ? Started : DateTime.UtcNow) - Epoch).Ticks * Speed));

    /// <summary>Parses an epoch given as Unix seconds.</summary>
    public static DateTime FromUnixSeconds(string seconds) =>
        DateTimeOffset.FromUnixTimeSeconds(long.Parse(seconds, CultureInfo.InvariantCulture)).UtcDateTime;
}
