using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;

namespace LowLatencyLog.Files;

// RollingFiles, continued: file names, periods, and the backups already on disk.
internal sealed partial class RollingFiles
{
    /// <summary>The roll point a date pattern implies: the first period whose start changes the formatted date.</summary>
    /// <remarks>Text that is not a date format at all (an unterminated quote, a lone escape, a one-letter
    /// non-standard format) is <see cref="RollPoint.Invalid"/> too: a typo must be reported, not make log4net drop the
    /// appender with a <see cref="FormatException"/>.</remarks>
    public static RollPoint ComputeCheckPeriod(string datePattern)
    {
        try
        {
            string r0 = Format(Date1970, datePattern);
            for (var point = RollPoint.TopOfMinute; point <= RollPoint.TopOfMonth; point++)
            {
                if (!string.Equals(r0, Format(NextCheckDate(Date1970, point), datePattern), StringComparison.Ordinal))
                {
                    return point;
                }
            }
        }
        catch (FormatException)
        {
        }

        return RollPoint.Invalid;
    }

    /// <summary>The start of the period after the one holding <paramref name="time"/>.</summary>
    public static DateTime NextCheckDate(DateTime time, RollPoint point)
    {
        // Only the whole milliseconds are taken off, as log4net does: sub-millisecond ticks stay in the result.
        DateTime t = time.AddMilliseconds(-time.Millisecond);
        switch (point)
        {
            case RollPoint.TopOfMinute:
                return t.AddSeconds(-t.Second).AddMinutes(1);
            case RollPoint.TopOfHour:
                return t.AddSeconds(-t.Second).AddMinutes(-t.Minute).AddHours(1);
            case RollPoint.HalfDay:
                t = t.AddSeconds(-t.Second).AddMinutes(-t.Minute);
                return t.Hour < 12 ? t.AddHours(12 - t.Hour) : t.AddHours(-t.Hour).AddDays(1);
            case RollPoint.TopOfDay:
                return t.AddSeconds(-t.Second).AddMinutes(-t.Minute).AddHours(-t.Hour).AddDays(1);
            case RollPoint.TopOfWeek:
                t = t.AddSeconds(-t.Second).AddMinutes(-t.Minute).AddHours(-t.Hour);
                return t.AddDays(7 - (int)t.DayOfWeek);
            case RollPoint.TopOfMonth:
                t = t.AddSeconds(-t.Second).AddMinutes(-t.Minute).AddHours(-t.Hour);
                return t.AddDays(1 - t.Day).AddMonths(1);
            default:
                return time;
        }
    }

    /// <summary>The suffix of a file being rolled between its two moves.</summary>
    internal const string RollingSuffix = ".rolling";

    /// <summary>The name <paramref name="fileName"/> has between a roll's two moves (the only place it is built).</summary>
    internal static string InterimName(string fileName) => fileName + RollingSuffix;

    private string StartFile()
    {
        string fileName = NextOutputFileName();
        if (!_options.StaticLogFileName)
        {
            _scheduledFileName = fileName;
        }

        CurrentFile = fileName;
        return fileName;
    }

    private string NextOutputFileName()
    {
        string fileName = _baseFileName;
        if (!_options.StaticLogFileName)
        {
            fileName = fileName.Trim();
            if (_options.RollDate)
            {
                fileName = CombinePath(fileName, Format(_now, _options.DatePattern));
            }

            if (_options.CountDirection >= 0)
            {
                fileName = CombinePath(fileName, "." + CurrentSizeRollBackups.ToString(CultureInfo.InvariantCulture));
            }
        }

        return fileName;
    }

    private void DetermineCurrentSizeRollBackups()
    {
        CurrentSizeRollBackups = 0;
        string baseName = Path.GetFileName(_baseFileName);
        string nameWithoutExtension = Path.GetFileNameWithoutExtension(baseName);
        string? folder = Path.GetDirectoryName(_baseFileName);
        if (folder == null || !Directory.Exists(folder))
        {
            return;
        }

        string pattern = _options.PreserveLogFileNameExtension
            ? nameWithoutExtension + "*" + Path.GetExtension(baseName)
            : baseName + "*";
        IEnumerable<string> names = Directory.GetFiles(folder, pattern)
            .Select(Path.GetFileName)
            .Where(name => name != null && name.StartsWith(nameWithoutExtension, StringComparison.Ordinal))!;
        string baseLower = baseName.ToLowerInvariant();
        foreach (string name in names)
        {
            CountExistingFile(baseLower, name.ToLowerInvariant());
        }
    }

    /// <summary>
    /// The highest backup number among the files named as the current file's size backups (within the limit when
    /// counting down), for a size roll in a folder other processes roll too. Unlike the count at start
    /// (<see cref="DetermineCurrentSizeRollBackups"/>, log4net's), a dated backup of an earlier period (a.log.2003-03.1)
    /// is not taken for backup 1.
    /// </summary>
    private int CountSharedBackups()
    {
        if (_options.MaxSizeRollBackups == 0 && (_options.StaticLogFileName || _options.CountDirection < 0))
        {
            return 0; // no backups; only a current file numbered by counting up moves on
        }

        string stem = _baseFileName;
        if (!_options.StaticLogFileName)
        {
            stem = _options.RollDate ? CombinePath(stem.Trim(), Format(_now, _options.DatePattern)) : stem.Trim();
        }

        string? folder = Path.GetDirectoryName(stem);
        string extension = _options.PreserveLogFileNameExtension ? Path.GetExtension(stem) : "";
        string prefix = (extension.Length > 0 ? Path.GetFileNameWithoutExtension(stem) : Path.GetFileName(stem)) + ".";
        int highest = 0;
        foreach (string path in folder != null && Directory.Exists(folder) ? Directory.GetFiles(folder) : Array.Empty<string>())
        {
            string name = Path.GetFileName(path);
            if (name.Length > prefix.Length + extension.Length && name.StartsWith(prefix, StringComparison.Ordinal) && name.EndsWith(extension, StringComparison.Ordinal)
                && int.TryParse(name.Substring(prefix.Length, name.Length - prefix.Length - extension.Length), NumberStyles.None, CultureInfo.InvariantCulture, out int backup)
                && backup > highest && (_options.CountDirection >= 0 || _options.MaxSizeRollBackups == -1 || backup <= _options.MaxSizeRollBackups))
            {
                highest = backup;
            }
        }

        return highest;
    }

    /// <summary>Raises <see cref="CurrentSizeRollBackups"/> to the backup number of an existing file, within limits.</summary>
    private void CountExistingFile(string baseFile, string fileName)
    {
        if (!fileName.StartsWith(Path.GetFileNameWithoutExtension(baseFile), StringComparison.Ordinal) ||
            string.Equals(fileName, baseFile, StringComparison.Ordinal))
        {
            return;
        }

        if (_options.RollDate && !_options.StaticLogFileName)
        {
            // Only backups of the current period count.
            string date = Format(_clock.Now, _options.DatePattern).ToLowerInvariant();
            string prefix = _options.PreserveLogFileNameExtension ? Path.GetFileNameWithoutExtension(baseFile) + date : baseFile + date;
            string suffix = _options.PreserveLogFileNameExtension ? Path.GetExtension(baseFile) : "";
            if (!fileName.StartsWith(prefix, StringComparison.Ordinal) || !fileName.EndsWith(suffix, StringComparison.Ordinal))
            {
                return;
            }
        }

        int backup = BackupIndex(fileName);
        if (backup <= CurrentSizeRollBackups || _options.MaxSizeRollBackups == 0)
        {
            return;
        }

        if (_options.MaxSizeRollBackups == -1 || _options.CountDirection >= 0 || backup <= _options.MaxSizeRollBackups)
        {
            CurrentSizeRollBackups = backup;
        }
    }

    /// <summary>The number after the last dot (before the extension when it is preserved); -1 if none.</summary>
    private int BackupIndex(string fileName)
    {
        string name = _options.PreserveLogFileNameExtension ? Path.GetFileNameWithoutExtension(fileName) : fileName;
        int dot = name.LastIndexOf('.');
        if (dot > 0 && int.TryParse(name.Substring(dot + 1), NumberStyles.Integer, CultureInfo.InvariantCulture, out int index))
        {
            return index;
        }

        return -1;
    }

    /// <summary>log4net's CombinePath: appends <paramref name="suffix"/>, before the extension when it is preserved.</summary>
    private string CombinePath(string path, string suffix)
    {
        string extension = Path.GetExtension(path);
        if (_options.PreserveLogFileNameExtension && extension.Length > 0)
        {
            return Path.Combine(Path.GetDirectoryName(path) ?? "", Path.GetFileNameWithoutExtension(path) + suffix + extension);
        }

        return path + suffix;
    }

    private static string Format(DateTime time, string datePattern) => time.ToString(datePattern, DateTimeFormatInfo.InvariantInfo);
}
