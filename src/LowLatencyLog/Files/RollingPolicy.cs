using System;
using System.Diagnostics;

namespace LowLatencyLog.Files;

/// <summary>
/// When a rolling file appender rolls, given to its file writer at activation: a date roll at the first batch after
/// a period's end, a size roll before the event that finds the file at the limit, and after a size roll that could not
/// move the file away, a pause before the next attempt. The <see cref="FileSink"/> asks before each batch and event,
/// and the <see cref="FileWriter"/> rolls at that event boundary.
/// </summary>
internal sealed class RollingPolicy
{
    /// <summary>After a size roll that could not move the file away, the next attempt waits this long.</summary>
    internal const int RetryRollMilliseconds = 1000;

    private readonly RollingOptions _options;
    private readonly IClock _clock;
    private RollingFiles? _files;
    private long _nextSizeRoll;

    private readonly bool _universalFileTimes;

    /// <param name="options">The settings.</param>
    /// <param name="clock">The time rolls are decided and named by.</param>
    /// <param name="universalFileTimes">Read the files' times in UTC (the clock gives UTC), as log4net does under its
    /// <c>UniversalDateTime</c>.</param>
    public RollingPolicy(RollingOptions options, IClock clock, bool universalFileTimes = false)
    {
        _options = options;
        _clock = clock;
        _universalFileTimes = universalFileTimes;
    }

    /// <summary>Rolls what earlier runs left as log4net would at start-up; returns the file to open.</summary>
    public string Start(string path, bool append, bool shared, Action<string, Exception?> reportError)
    {
        _files = new RollingFiles(path, _options, _clock, reportError) { Shared = shared, UniversalFileTimes = _universalFileTimes };
        return _files.Activate(append);
    }

    /// <summary>Whether a date roll is due before the next batch (the clock is read once per batch).</summary>
    public bool DateRollDue() => _files != null && _files.DateRollDue();

    /// <summary>The size that makes the next event roll the file; <see cref="long.MaxValue"/> when size never does.</summary>
    public long SizeLimit => _files?.MaxFileSize ?? long.MaxValue;

    /// <summary>Whether a size roll may be tried now (not within the pause after one that could not move the file).</summary>
    public bool SizeRollAllowed => Stopwatch.GetTimestamp() >= _nextSizeRoll;

    /// <summary>Rolls <paramref name="writer"/>'s file: closes it, renames the files, and returns the file to open next,
    /// or null if nothing changed.</summary>
    /// <param name="writer">The writer whose file is closed first.</param>
    /// <param name="byDate">A date roll; else a size roll.</param>
    /// <param name="keepsEvents">True if the current file could not be moved away: it keeps its events and is opened
    /// for append rather than truncated.</param>
    public string? Roll(FileWriter writer, bool byDate, out bool keepsEvents)
    {
        string? next = byDate ? _files!.RollOverTime(writer) : _files!.RollOverSize(writer);
        keepsEvents = _files.CurrentFileStayed;
        return next;
    }

    /// <summary>Keeps the pause of the policy this one replaces (the appender activated again).</summary>
    public void ContinueFrom(RollingPolicy? previous) => _nextSizeRoll = previous?._nextSizeRoll ?? 0;

    /// <summary>After a size roll: pauses the next attempt when this one could not move the file.</summary>
    public void AfterSizeRoll()
    {
        if (_files!.CurrentFileStayed)
        {
            _nextSizeRoll = Stopwatch.GetTimestamp() + Stopwatch.Frequency * RetryRollMilliseconds / 1000;
        }
    }
}
