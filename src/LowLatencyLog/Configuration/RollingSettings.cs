using System;
using LowLatencyLog.Files;

namespace LowLatencyLog.Configuration;

/// <summary>
/// The rolling file appender's settings, read from their text at activation with log4net's names and meanings; the
/// defaults are those of <see cref="RollingOptions"/>.
/// </summary>
internal static class RollingSettings
{
    private static readonly RollingOptions Defaults = new RollingOptions();

    /// <summary><c>rollingStyle</c>: a name or log4net's number for it.</summary>
    public static RollingMode ReadMode(string? rollingStyle, Action<string> reportError) =>
        SettingReader.NameOrNumber("rollingStyle", rollingStyle, Defaults.Mode, reportError);

    public static RollingOptions Read(
        string? rollingStyle, string? maximumFileSize, string? maxFileSize, string? maxSizeRollBackups, string? datePattern,
        string? staticLogFileName, string? preserveLogFileNameExtension, string? countDirection, Action<string> reportError)
    {
        var options = new RollingOptions
        {
            Mode = ReadMode(rollingStyle, reportError),
            MaxSizeRollBackups = SettingReader.Integer("maxSizeRollBackups", maxSizeRollBackups, Defaults.MaxSizeRollBackups, int.MinValue, int.MaxValue, reportError),
            StaticLogFileName = SettingReader.Boolean("staticLogFileName", staticLogFileName, Defaults.StaticLogFileName, reportError),
            PreserveLogFileNameExtension = SettingReader.Boolean("preserveLogFileNameExtension", preserveLogFileNameExtension, Defaults.PreserveLogFileNameExtension, reportError),
            CountDirection = SettingReader.Integer("countDirection", countDirection, Defaults.CountDirection, int.MinValue, int.MaxValue, reportError),
        };

        // Any size, as log4net: 0 or less rolls before every event. maxFileSize (log4net's numeric name) wins.
        long size = SettingReader.Size("maximumFileSize", maximumFileSize, Defaults.MaxFileSize, reportError);
        options.MaxFileSize = SettingReader.Size("maxFileSize", maxFileSize, size, reportError);

        // A bad pattern is reported only for a style that rolls by date: log4net never reads it otherwise, and says nothing.
        string pattern = datePattern ?? Defaults.DatePattern;
        if (RollingFiles.ComputeCheckPeriod(pattern) != RollPoint.Invalid)
        {
            options.DatePattern = pattern;
        }
        else if (options.RollDate)
        {
            reportError(SettingReader.Message(
                "datePattern", pattern, "a date format whose output changes at least once a month, e.g. .yyyy-MM-dd",
                Defaults.DatePattern));
        }

        return options;
    }
}
