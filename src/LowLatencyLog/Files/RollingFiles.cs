using System;
using System.Globalization;
using System.IO;
using log4net.Util;

namespace LowLatencyLog.Files;

/// <summary>
/// The file names and renames of log4net's <c>RollingFileAppender</c>, reproduced so that a configuration moved over
/// produces the same files: which file is written, when it rolls, and how backups are numbered, renamed and deleted.
/// </summary>
/// <remarks>
/// <para>The state is log4net's: the base file name, the file being written, the number of size backups in the current
/// period, the name the current file gets at the next date roll (<see cref="_scheduledFileName"/>), the time of the
/// last roll and of the next date check. The <see cref="RollingPolicy"/> asks <see cref="DateRollDue"/> before each
/// batch and calls the roll methods with the <see cref="FileWriter"/>, whose current file they close; the writer then
/// opens the file name returned, truncating it.</para>
/// <para>Dates are formatted with the invariant culture, as log4net does. Rename and delete failures are reported and
/// the roll goes on, as in log4net.</para>
/// </remarks>
internal sealed partial class RollingFiles
{
    private static readonly DateTime Date1970 = new DateTime(1970, 1, 1);

    private readonly RollingOptions _options;

    private readonly IClock _clock;

    private readonly Action<string, Exception?> _reportError;

    private readonly string _baseFileName;

    private string? _scheduledFileName;

    private DateTime _now;

    private DateTime _nextCheck = DateTime.MaxValue;

    private DateTime _boundary; // the period boundary the last date roll crossed
    private RollPoint _rollPoint;

    public RollingFiles(string baseFileName, RollingOptions options, IClock clock, Action<string, Exception?> reportError)
    {
        _baseFileName = baseFileName;
        CurrentFile = baseFileName;
        _options = options;
        _clock = clock;
        _reportError = reportError;
    }

    /// <summary>Size backups made in the current period (log4net's <c>CurrentSizeRollBackups</c>).</summary>
    public int CurrentSizeRollBackups { get; private set; }

    /// <summary>The file being written (the base name, or a dated/numbered one when staticLogFileName is false).</summary>
    public string CurrentFile { get; private set; }

    /// <summary>
    /// Sets the starting state from the files present: counts existing backups, rolls a base file left over from an
    /// earlier period, and rolls the existing file out of the way when not appending.
    /// </summary>
    /// <param name="append">Whether the file is appended to (false for <see cref="RollingMode.Once"/>).</param>
    /// <returns>The file to open.</returns>
    public string Activate(bool append)
    {
        if (_options.RollDate)
        {
            _now = _clock.Now;
            _rollPoint = ComputeCheckPeriod(_options.DatePattern);
            _nextCheck = NextCheckDate(_now, _rollPoint);
            _scheduledFileName = CombinePath(_baseFileName, Format(_now, _options.DatePattern));
        }

        DetermineCurrentSizeRollBackups();
        RecoverInterruptedRoll();
        RollOverIfDateBoundaryCrossed();
        if (!append)
        {
            string fileName = NextOutputFileName();
            if (File.Exists(fileName) && _options.MaxSizeRollBackups != 0)
            {
                RollOverRenameFiles(fileName);
            }
        }

        return StartFile();
    }

    /// <summary>True if the time has crossed into a new period; then <see cref="RollOverTime"/> is due.</summary>
    public bool DateRollDue()
    {
        if (!_options.RollDate)
        {
            return false;
        }

        DateTime now = _clock.Now;
        if (now < _nextCheck)
        {
            return false;
        }

        _boundary = _nextCheck;
        _now = now;
        _nextCheck = NextCheckDate(now, _rollPoint);
        return true;
    }

    /// <summary>
    /// True when the last roll could not move the current file away (its rename failed): the file still holds its
    /// events, so it is opened again to append rather than truncated, and nothing written is lost.
    /// </summary>
    public bool CurrentFileStayed { get; private set; }

    /// <summary>
    /// Other processes write these files too (under the lock the caller holds while rolling): a date roll whose dated
    /// name exists already was made by one of them, and the current file, started by that process, is kept.
    /// </summary>
    public bool Shared { get; set; }

    /// <summary>File times are read in UTC (the clock gives UTC), as log4net reads them under <c>UniversalDateTime</c>.</summary>
    public bool UniversalFileTimes { get; set; }

    /// <summary>True if a size roll starts the same file again, truncated (no backups, static name).</summary>
    private bool SizeRollTruncates => _options.MaxSizeRollBackups == 0 && _options.StaticLogFileName;

    /// <summary>The size limit, for callers that estimate before counting exactly.</summary>
    public long MaxFileSize => _options.RollSize ? _options.MaxFileSize : long.MaxValue;

    /// <summary>
    /// Rolls to the new period: closes the current file (<paramref name="writer"/>'s; none at start-up), renames it and
    /// its size backups to the dated names when the file name is static, and returns the file to open; null if nothing
    /// changed.
    /// </summary>
    public string? RollOverTime(FileWriter? writer)
    {
        CurrentFileStayed = false;
        if (_options.StaticLogFileName)
        {
            string dated = CombinePath(CurrentFile, Format(_now, _options.DatePattern));
            if (string.Equals(_scheduledFileName, dated, StringComparison.Ordinal))
            {
                _reportError($"Date roll found the scheduled file name unchanged [{dated}]; not rolling.", null);
                return null;
            }

            writer?.CloseForRoll(keepStream: false);
            if (Shared && RolledByAnotherProcess(_scheduledFileName!))
            {
                CurrentSizeRollBackups = 0;
                _scheduledFileName = CombinePath(CurrentFile, Format(_now, _options.DatePattern));
                CurrentFileStayed = true; // appended to, never truncated: it holds another process's events
                return StartFile();
            }

            for (int i = 1; i <= CurrentSizeRollBackups; i++)
            {
                RollFile(CombinePath(CurrentFile, "." + i), CombinePath(_scheduledFileName!, "." + i), warnIfMissing: true);
            }

            CurrentFileStayed = !RollFile(CurrentFile, _scheduledFileName!, warnIfMissing: true);
        }
        else
        {
            writer?.CloseForRoll(keepStream: false);
        }

        CurrentSizeRollBackups = 0;
        _scheduledFileName = CombinePath(CurrentFile, Format(_now, _options.DatePattern));
        return StartFile();
    }

    /// <summary>Rolls by size: closes the current file (kept open when the roll truncates it), renames or deletes
    /// backups, and returns the file to open.</summary>
    public string RollOverSize(FileWriter writer)
    {
        CurrentFileStayed = false;
        writer.CloseForRoll(keepStream: SizeRollTruncates);
        if (Shared)
        {
            // Other processes roll too: count the backups they made, never below this process's own count.
            CurrentSizeRollBackups = Math.Max(CurrentSizeRollBackups, CountSharedBackups());
        }

        RollOverRenameFiles(CurrentFile);
        if (!_options.StaticLogFileName && _options.CountDirection >= 0)
        {
            CurrentSizeRollBackups++;
        }

        return StartFile();
    }

    /// <summary>At start: a static base file last written in an earlier period is renamed to that period's name.</summary>
    private void RollOverIfDateBoundaryCrossed()
    {
        if (!_options.StaticLogFileName || !_options.RollDate || !File.Exists(_baseFileName))
        {
            return;
        }

        string last = Format(UniversalFileTimes ? File.GetLastWriteTimeUtc(_baseFileName) : File.GetLastWriteTime(_baseFileName), _options.DatePattern);
        if (string.Equals(last, Format(_now, _options.DatePattern), StringComparison.Ordinal))
        {
            return;
        }

        _scheduledFileName = CombinePath(_baseFileName, last);
        RollOverTime(writer: null); // no file open yet
    }

    /// <summary>Renames the backups one step (or deletes the oldest) to free a slot for the file being rolled.</summary>
    /// <remarks>
    /// The file being rolled is moved out of the way first, to its interim name (<see cref="InterimName"/>): if it
    /// cannot be moved (another process holds it), nothing else is touched, so a roll that keeps failing never deletes
    /// or shifts a backup. A file already under that name was left by a roll that was interrupted (its process killed
    /// between the two moves): it is made the newest backup first, never deleted.
    /// </remarks>
    private void RollOverRenameFiles(string fileName)
    {
        if (_options.MaxSizeRollBackups == 0)
        {
            return;
        }

        bool movesCurrent = _options.CountDirection < 0 || _options.StaticLogFileName;
        if (!movesCurrent)
        {
            CurrentFileStayed = !MakeRoomAndPlace(fileName, null, orphan: false);
            return;
        }

        string interim = InterimName(fileName);
        if (File.Exists(interim) && !RecoverOrphan(fileName))
        {
            CurrentFileStayed = true;
            return;
        }

        string? moved = null;
        if (File.Exists(fileName))
        {
            moved = interim;
            if (!RollFile(fileName, moved))
            {
                CurrentFileStayed = true;
                return;
            }
        }

        CurrentFileStayed = !MakeRoomAndPlace(fileName, moved, orphan: false);
    }

    /// <summary>Makes the file an interrupted roll left under <paramref name="fileName"/>'s interim name the newest
    /// backup, as that roll would have; false (reported) if it could not be moved, and it is then left where it is.</summary>
    private bool RecoverOrphan(string fileName)
    {
        string interim = InterimName(fileName);
        _reportError($"Found [{interim}], left by a roll that was interrupted; it becomes the newest backup.", null);
        return MakeRoomAndPlace(fileName, interim, orphan: true);
    }

    /// <summary>Shifts or deletes backups to free the newest backup's slot and moves <paramref name="moved"/> there.</summary>
    /// <returns>False if <paramref name="moved"/> could not be placed (it went back to <paramref name="fileName"/>, or
    /// stays where it is if it is an <paramref name="orphan"/>).</returns>
    private bool MakeRoomAndPlace(string fileName, string? moved, bool orphan)
    {
        int max = _options.MaxSizeRollBackups;
        if (_options.CountDirection < 0)
        {
            if (CurrentSizeRollBackups == max)
            {
                DeleteFile(CombinePath(fileName, "." + max.ToString(CultureInfo.InvariantCulture)));
                CurrentSizeRollBackups--;
            }

            for (int i = CurrentSizeRollBackups; i >= 1; i--)
            {
                RollFile(CombinePath(fileName, "." + i.ToString(CultureInfo.InvariantCulture)),
                         CombinePath(fileName, "." + (i + 1).ToString(CultureInfo.InvariantCulture)), warnIfMissing: true);
            }

            CurrentSizeRollBackups++;
            return FinishMove(moved, fileName, CombinePath(fileName, ".1"), orphan);
        }

        if (CurrentSizeRollBackups >= max && max > 0)
        {
            int oldest = CurrentSizeRollBackups - max + (_options.StaticLogFileName ? 1 : 0);
            string archiveBase = fileName;
            if (!_options.StaticLogFileName)
            {
                // The current file carries its number (and maybe a date); the archive name keeps only the date.
                if (_options.PreserveLogFileNameExtension)
                {
                    string extension = Path.GetExtension(archiveBase);
                    string stem = Path.Combine(Path.GetDirectoryName(archiveBase) ?? "", Path.GetFileNameWithoutExtension(archiveBase));
                    int dot = stem.LastIndexOf('.');
                    if (dot >= 0)
                    {
                        archiveBase = stem.Substring(0, dot) + extension;
                    }
                }
                else
                {
                    int dot = archiveBase.LastIndexOf('.');
                    if (dot >= 0)
                    {
                        archiveBase = archiveBase.Substring(0, dot);
                    }
                }
            }

            DeleteFile(CombinePath(archiveBase, "." + oldest.ToString(CultureInfo.InvariantCulture)));
        }

        if (_options.StaticLogFileName)
        {
            CurrentSizeRollBackups++;
            return FinishMove(moved, fileName, CombinePath(fileName, "." + CurrentSizeRollBackups.ToString(CultureInfo.InvariantCulture)), orphan);
        }

        return true;
    }

    /// <summary>
    /// A process killed between a roll's two moves leaves the rolled file under its interim name. With the file name
    /// static and no current file yet, it goes back to that name (its events are the newest); otherwise it becomes the
    /// newest backup.
    /// </summary>
    private void RecoverInterruptedRoll()
    {
        string interim = InterimName(_baseFileName);
        if (!File.Exists(interim))
        {
            return;
        }

        if (_options.StaticLogFileName && !File.Exists(_baseFileName) && RollFile(interim, _baseFileName))
        {
            return;
        }

        if (_options.MaxSizeRollBackups == 0 || !(_options.CountDirection < 0 || _options.StaticLogFileName))
        {
            _reportError($"Found [{interim}], left by a roll that was interrupted; it is kept as it is.", null);
            return;
        }

        RecoverOrphan(_baseFileName);
    }

    /// <summary>
    /// Whether another process sharing the files made the dated backup of the period that just ended: it exists and was
    /// written within that period. A dated name from an earlier cycle of a repeating pattern (a weekday, an hour of
    /// the day) was written long before, and is rolled over as log4net does.
    /// </summary>
    private bool RolledByAnotherProcess(string dated)
    {
        try
        {
            var info = new FileInfo(dated);
            return info.Exists && (UniversalFileTimes ? info.LastWriteTimeUtc : info.LastWriteTime) > _boundary - (_nextCheck - _boundary);
        }
        catch (Exception)
        {
            return false;
        }
    }

    /// <summary>Moves the rolled file from its interim name to its backup name; if that fails, back where it was.</summary>
    /// <returns>False when the file is back under <paramref name="fileName"/> (it stayed).</returns>
    private bool FinishMove(string? moved, string fileName, string backup, bool orphan = false)
    {
        if (moved != null && !File.Exists(moved))
        {
            // Moved on by someone else meanwhile (a process starting up that took it for a killed roll): the current
            // file is not known to be empty, so it is appended to rather than started again.
            _reportError($"The file being rolled [{moved}] disappeared before it reached [{backup}].", null);
            return false;
        }

        if (moved == null || RollFile(moved, backup))
        {
            return true;
        }

        if (!orphan)
        {
            RollFile(moved, fileName);
        }

        return false;
    }

    /// <summary>Moves <paramref name="from"/> to <paramref name="to"/>; false, reported, if it exists and could not be moved.</summary>
    /// <param name="from">The file moved.</param>
    /// <param name="to">Its new name.</param>
    /// <param name="warnIfMissing">Where log4net moves a file that may be gone (a date roll moving backups 1 to the
    /// count, the oldest deleted when counting up): its warning, for a file that is not there.</param>
    private bool RollFile(string from, string to, bool warnIfMissing = false)
    {
        if (!File.Exists(from))
        {
            if (warnIfMissing)
            {
                LogLog.Warn(typeof(RollingFiles), $"Cannot RollFile [{from}] -> [{to}]. Source does not exist");
            }

            return true;
        }

        DeleteFile(to);
        try
        {
            File.Move(from, to);
            return true;
        }
        catch (Exception ex) when (ex is IOException || ex is UnauthorizedAccessException)
        {
            _reportError($"Could not roll file [{from}] -> [{to}]; writing on in it.", ex);
            return false;
        }
    }

    private void DeleteFile(string path)
    {
        try
        {
            if (File.Exists(path))
            {
                File.Delete(path);
            }
        }
        catch (Exception ex) when (ex is IOException || ex is UnauthorizedAccessException)
        {
            _reportError($"Could not delete file [{path}].", ex);
        }
    }
}
