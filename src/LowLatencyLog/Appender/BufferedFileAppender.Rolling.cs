using System;
using System.IO;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Files;
using LowLatencyLog.Text;

namespace LowLatencyLog.Appender;

// BufferedFileAppender, continued: rolls (at event boundaries, under the shared lock when files are shared) and the locking model.
public partial class BufferedFileAppender
{
    /// <summary>The bytes the current file holds, the events still buffered for it included.</summary>
    /// <param name="limit">The caller only needs to know whether the length reaches this value; below it, with
    /// events not yet encoded, an upper bound may be returned instead of the exact length.</param>
    private long CurrentFileLength(long limit)
    {
        EventBufferWriter writer = _writer!;
        long length = _lengthAtOpen + (writer.EncodedBytesBetweenEvents - _countMark);
        if (writer.PendingChars > 0 && length + _encoding.GetMaxByteCount(writer.PendingChars) >= limit)
        {
            writer.EncodePending();
            length = _lengthAtOpen + (writer.EncodedBytesBetweenEvents - _countMark);
        }
        else if (writer.PendingChars > 0)
        {
            length += _encoding.GetMaxByteCount(writer.PendingChars);
        }

        return length;
    }

    /// <summary>
    /// Rolls at an event boundary: <paramref name="roll"/> is given the action that closes the current file (footer,
    /// buffered events written) and returns the file to open next (truncated, unless <paramref name="append"/> says
    /// the current file could not be moved away and must keep its events), or null if nothing changed. With
    /// <paramref name="sameFile"/> (a size roll without backups) the file is truncated through the open handle.
    /// </summary>
    /// <remarks>For a size roll, <paramref name="sizeLimit"/> is the limit: a file shared with other processes is rolled
    /// only if it still holds that much (another process may have rolled it meanwhile).</remarks>
    private void Roll(Func<Action, string?> roll, Func<bool> append, bool sameFile = false, long sizeLimit = -1)
    {
        if (_shared)
        {
            // Under the lock every writer of the file takes around its writes: no process appends to a file being
            // renamed, and the next write of each goes to the new one.
            try
            {
                _sharedLock!.EnterRoll();
            }
            catch (IOException ex)
            {
                ReportError("Could not roll the log file: " + ex.Message, ex, ErrorCode.GenericFailure);
                return;
            }

            try
            {
                if (sizeLimit < 0 || SharedFileStillHolds(sizeLimit))
                {
                    RollLocked(roll, append, sameFile);
                }
            }
            finally
            {
                _sharedLock.ExitRoll();
            }

            return;
        }

        RollLocked(roll, append, sameFile);
    }

    /// <summary>Whether the shared file, read again now, still reaches <paramref name="limit"/> with what is buffered.</summary>
    private bool SharedFileStillHolds(long limit)
    {
        try
        {
            var info = new FileInfo(_path!);
            CountFrom(info.Exists ? info.Length : 0);
        }
        catch (Exception)
        {
            return true;
        }

        return CurrentFileLength(limit) >= limit;
    }

    private void RollLocked(Func<Action, string?> roll, Func<bool> append, bool sameFile)
    {
        string? next;
        try
        {
            next = roll(() => CloseFile(writeFooter: true, keepStream: sameFile));
        }
        catch (Exception ex)
        {
            ReportError("Could not roll the log file.", ex, ErrorCode.GenericFailure);
            return;
        }

        if (next == null)
        {
            return;
        }

        Stream? kept = _stream;
        if (kept != null && sameFile && !append() && string.Equals(next, _path, StringComparison.Ordinal) && IsStillTheFile(kept, next))
        {
            // Truncated through the handle we hold: closing a file truncated to zero makes ext4 write it out, and the
            // next truncation waits for that (docs/file-appenders.md, "With 0 backups").
            DetachStream();
            Open(next, append: false, recovering: false, reuse: kept);
            return;
        }

        CloseStream();
        Open(next, append: append(), recovering: false);
    }

    /// <summary>True if <paramref name="path"/> is still the file <paramref name="stream"/> writes (not deleted or
    /// replaced meanwhile): it exists and has the stream's length.</summary>
    private bool IsStillTheFile(Stream stream, string path)
    {
        try
        {
            return stream.CanSeek && _files.Exists(path) && new FileInfo(path).Length == stream.Length;
        }
        catch (Exception)
        {
            return false;
        }
    }

    /// <summary>The rolling policy, once activated; null for a file that never rolls.</summary>
    private RollingPolicy? _rolling;

    /// <summary>Prepares the files (a rolling policy rolls what is left from earlier runs); returns the file to open.</summary>
    private string StartFiles(string path, bool append) =>
        _rolling?.Start(path, append, _shared, (message, ex) => ReportError(message, ex, ErrorCode.GenericFailure)) ?? path;

    /// <summary>Before the first event of a batch (a single event is a batch of one), under the lock: a date roll, the
    /// clock read once per batch rather than per event.</summary>
    private void BeforeBatch()
    {
        RollingPolicy? rolling = _rolling;
        if (rolling != null && rolling.DateRollDue())
        {
            RollNow(rolling, byDate: true);
        }
    }

    /// <summary>Before each event is rendered, under the lock: a size roll.</summary>
    private void BeforeEvent()
    {
        RollingPolicy? rolling = _rolling;
        if (rolling == null)
        {
            return;
        }

        // Never while no file is open (the next one failed to open and is retried: rolling again would shift the
        // backups once per event), and after a roll that could not move the file, not again for a while.
        long limit = rolling.SizeLimit;
        if (limit != long.MaxValue && _stream != null && CurrentFileLength(limit) >= limit && rolling.SizeRollAllowed)
        {
            RollNow(rolling, byDate: false);
            rolling.AfterSizeRoll();
        }
    }

    // Apart from the checks above: a lambda that captures a local makes the compiler allocate its closure on entry to
    // the method that declares the local, which was every event.
    private void RollNow(RollingPolicy rolling, bool byDate) =>
        Roll(
            rolling.Roll(byDate),
            () => rolling.CurrentFileStayed,
            sameFile: !byDate && rolling.SizeRollTruncates,
            sizeLimit: byDate ? -1 : rolling.SizeLimit);

    /// <summary>Whether log4net's own appender for these settings takes a rolling lock (RollingFileAppender does).</summary>
    private protected virtual bool Rolls => false;

    /// <summary>Sets up the locking model; false (reported) if the shared lock it needs cannot be had.</summary>
    private bool SetLocking(FileSharing sharing, string fullPath)
    {
        _sharedLock?.Dispose();
        _sharedLock = null;
        _sharing = sharing;
        _shared = sharing == FileSharing.Shared;
        if (!_shared)
        {
            return true;
        }

        try
        {
            _sharedLock = SharedLock.Create(fullPath, Rolls);
            return true;
        }
        catch (IOException ex)
        {
            // Refused as a second writer under ExclusiveLock is: writes without the lock could overwrite others' lines.
            ReportError($"The file [{fullPath}] is not written: {ex.Message}", ex, ErrorCode.FileOpenFailure);
            LogLog.Error(typeof(BufferedFileAppender), $"{GetType().Name} [{Name}]: {ex.Message}");
            return false;
        }
    }

    /// <summary>Opens <paramref name="path"/> as the locking model says.</summary>
    private Stream OpenFileStream(string path, bool append) => _sharing switch
    {
        FileSharing.Shared => new SharedFileStream(path, append, _sharedLock!, _encoding),
        FileSharing.None => LogFile.Open(path, append, exclusive: false),
        _ => _files.Open(path, append),
    };
}
