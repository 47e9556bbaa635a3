using System;
using System.IO;
using log4net.Core;
using LowLatencyLog.Text;

namespace LowLatencyLog.Files;

// FileWriter, continued: rolling at an event boundary, and the file's length the size rolls read.
internal sealed partial class FileWriter
{
    /// <summary>Counts the file's length from here on: <paramref name="fileLength"/> bytes in the file, and what the
    /// writer encodes from now (the size rolls read it, <see cref="CurrentFileLength"/>).</summary>
    private void CountFrom(long fileLength)
    {
        EventBufferWriter writer = _writer!;
        _lengthAtOpen = fileLength;
        _countMark = writer.EncodedBytes - writer.CompleteLength;
    }

    /// <summary>
    /// Counts a shared file again from its length on disk (other processes' writes count towards the size roll),
    /// less what this writer wrote when it opened the file: log4net's count leaves out the byte-order mark and header
    /// (it is set to the length before them), so the roll comes at the same event as log4net's in one process.
    /// </summary>
    private void CountSharedFrom(long fileLength) => CountFrom(Math.Max(0, fileLength - _writtenAtOpen));

    /// <summary>The bytes the current file holds, the events still buffered for it included.</summary>
    /// <param name="limit">The caller only needs to know whether the length reaches this value; below it, with
    /// events not yet encoded, an upper bound may be returned instead of the exact length.</param>
    internal long CurrentFileLength(long limit)
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

    /// <summary>Closes the current file for a roll: the footer, then the buffered events; with
    /// <paramref name="keepStream"/> (a size roll that truncates the same file) the handle stays open if everything was
    /// written.</summary>
    internal void CloseForRoll(bool keepStream) => CloseFile(writeFooter: true, keepStream: keepStream);

    /// <summary>
    /// Rolls at an event boundary: the policy closes the current file (footer, buffered events written), renames the
    /// files and returns the file to open next, which is truncated unless the current file could not be moved away and
    /// keeps its events.
    /// </summary>
    /// <remarks>A size roll of a file shared with other processes happens only if the file still holds the limit
    /// (another process may have rolled it meanwhile).</remarks>
    internal void Roll(RollingPolicy rolling, bool byDate)
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
                _owner.ReportError("Could not roll the log file: " + ex.Message, ex, ErrorCode.GenericFailure);
                return;
            }

            try
            {
                long sizeLimit = byDate ? -1 : rolling.SizeLimit;
                if (sizeLimit < 0 || SharedFileStillHolds(sizeLimit))
                {
                    RollLocked(rolling, byDate);
                }
            }
            finally
            {
                _sharedLock.ExitRoll();
            }

            return;
        }

        RollLocked(rolling, byDate);
    }

    /// <summary>Whether the shared file, read again now, still reaches <paramref name="limit"/> with what is buffered.</summary>
    private bool SharedFileStillHolds(long limit)
    {
        try
        {
            var info = new FileInfo(_path!);
            CountSharedFrom(info.Exists ? info.Length : 0);
        }
        catch (Exception)
        {
            return true;
        }

        return CurrentFileLength(limit) >= limit;
    }

    private void RollLocked(RollingPolicy rolling, bool byDate)
    {
        string? next;
        bool keepsEvents;
        try
        {
            next = rolling.Roll(this, byDate, out keepsEvents);
        }
        catch (Exception ex)
        {
            _owner.ReportError("Could not roll the log file.", ex, ErrorCode.GenericFailure);
            return;
        }

        if (next == null)
        {
            return;
        }

        // A handle still open was kept by a size roll that truncates the same file (CloseForRoll).
        Stream? kept = _stream;
        if (kept != null && !keepsEvents && string.Equals(next, _path, StringComparison.Ordinal) && IsStillTheFile(kept, next))
        {
            // Truncated through the handle we hold: closing a file truncated to zero makes ext4 write it out, and the
            // next truncation waits for that (docs/file-appenders.md, "With 0 backups").
            DetachStream();
            Open(next, append: false, recovering: false, reuse: kept);
            return;
        }

        CloseStream();
        Open(next, append: keepsEvents, recovering: false);
    }
}
