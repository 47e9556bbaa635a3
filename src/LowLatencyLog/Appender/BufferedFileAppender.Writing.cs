using System;
using System.Diagnostics;
using System.IO;
using System.Text;
using System.Threading;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Files;
using LowLatencyLog.Text;

namespace LowLatencyLog.Appender;

// BufferedFileAppender, continued: the file: writing out, opening, closing, and the flush timer.
public partial class BufferedFileAppender
{
    private void EndAppend(bool batch)
    {
        if (batch || _immediateFlush)
        {
            WriteOut(flushStream: _immediateFlush, force: false);
        }
        else if (_failing)
        {
            if (Stopwatch.GetTimestamp() >= _retryAt)
            {
                WriteOut(flushStream: false, force: false);
            }
        }
        else if (!_timerArmed && _flushInterval > 0)
        {
            ArmTimer(_flushInterval);
        }

        ReportProblems();
    }

    /// <summary>
    /// Writes the complete events (and flushes the stream if asked). Opens the file again first if it is not open or,
    /// when the check is due, if it disappeared. Never throws; failures are reported and retried later.
    /// </summary>
    /// <returns>True if nothing is left in the buffer.</returns>
    private bool WriteOut(bool flushStream, bool force)
    {
        EventBufferWriter writer = _writer!;
        long now = Stopwatch.GetTimestamp();
        if (_failing && !force && now < _retryAt)
        {
            return false;
        }

        if (_stream == null)
        {
            if (_path == null || !Reopen())
            {
                return false;
            }
        }
        else if (!_shared && (force || now >= _nextExistenceCheck))
        {
            // (A shared file is opened by path at each write: one renamed or deleted by another process is started again.)
            _nextExistenceCheck = now + Ticks(ExistenceCheckIntervalMs);
            bool missing = !_files.Exists(_path!);
            if (!missing && _stream is FileStream open && open.CanSeek && open.Position > open.Length)
            {
                // Truncated in place (a rotation by copy and truncate): the next write would leave a gap of zero bytes.
                ReportError($"The file [{_path}] was cut short by another program; writing on at its new end.", null, ErrorCode.WriteFailure);
                open.Seek(0, SeekOrigin.End);
            }
            else if (missing || (_stream is FileStream && !IsStillTheFile(_stream, _path!)))
            {
                // Deleted, or replaced by another file (what we would write next would go to a file nobody can open).
                ReportError(
                    missing ? $"The file [{_path}] disappeared; creating it again."
                    : $"The file [{_path}] was replaced by another program; writing on in the file now at that path.",
                    null,
                    ErrorCode.WriteFailure);
                CloseStream();
                if (!Open(_path!, append: true, recovering: true))
                {
                    return false;
                }
            }
        }

        try
        {
            if (flushStream)
            {
                writer.Flush();
            }
            else
            {
                writer.WriteCompleteEvents();
            }

            _failing = false;
            if (_stream is SharedFileStream shared)
            {
                // Other processes' writes count towards the size roll too.
                CountFrom(shared.Length);
            }

            return !writer.HasCompleteEvents;
        }
        catch (Exception ex)
        {
            ReportWriteFailure(ex);
            return false;
        }
    }

    private void ReportWriteFailure(Exception ex)
    {
        ReportError(
            $"Could not write to the file [{_path}]; the events stay buffered and the write is retried.", ex, ErrorCode.WriteFailure);
        RetryLater();
        if (ex is ObjectDisposedException || (_stream != null && !_stream.CanSeek))
        {
            // The stream cannot be rewound for the retry: start from a fresh handle.
            CloseStream();
        }
    }

    /// <summary>After a failed open or write: the next attempt waits <see cref="RetryIntervalMs"/>, on the timer if
    /// nothing logs meanwhile.</summary>
    private void RetryLater()
    {
        _failing = true;
        _retryAt = Stopwatch.GetTimestamp() + Ticks(RetryIntervalMs);
        ArmTimer(RetryIntervalMs);
    }

    /// <summary>Counts the file's length from here on: <paramref name="fileLength"/> bytes in the file, and what the
    /// writer encodes from now (the size rolls read it, <see cref="CurrentFileLength"/>).</summary>
    private void CountFrom(long fileLength)
    {
        EventBufferWriter writer = _writer!;
        _lengthAtOpen = fileLength;
        _countMark = writer.EncodedBytes - writer.CompleteLength;
    }

    /// <summary>Reports a write failure met inside the writer and events it had to drop.</summary>
    private void ReportProblems()
    {
        EventBufferWriter writer = _writer!;
        Exception? failure = writer.TakeWriteFailure();
        if (failure != null)
        {
            ReportWriteFailure(failure);
        }

        long dropped = writer.DroppedEvents;
        if (dropped != _reportedDrops)
        {
            ReportError(
                $"{dropped - _reportedDrops} event(s) dropped whole ({dropped} in all): the buffer reached its limit while the file " +
                $"[{_path}] could not be written, or one event was larger than the limit.", null, ErrorCode.WriteFailure);
            _reportedDrops = dropped;
        }
    }

    /// <summary>Opens the file: byte-order mark for an empty file, a newline after a torn last line, the header.</summary>
    /// <param name="path">The file.</param>
    /// <param name="append">False to truncate it.</param>
    /// <param name="recovering">True when opening again after a failure: the header is written only if the file is new.</param>
    /// <param name="reuse">An open handle on <paramref name="path"/> to truncate and write on, instead of opening it.</param>
    private bool Open(string path, bool append, bool recovering, Stream? reuse = null)
    {
        EventBufferWriter writer = _writer!;
        _path = path;
        try
        {
            bool midLine = append && !_shared && LogFile.EndsMidLine(path, _encoding); // a shared stream checks under its lock
            Stream stream = reuse != null ? Truncated(reuse) : OpenFileStream(path, append);
            long length;
            try
            {
                length = stream.CanSeek || stream is SharedFileStream ? stream.Length : 0;
                var prefix = new StringBuilder();
                if (midLine)
                {
                    prefix.Append(Environment.NewLine);
                }

                string? header = Layout?.Header;
                if (header != null && (!recovering || length == 0))
                {
                    prefix.Append(header);
                }

                // Written straight to the file, ahead of anything already buffered for it.
                byte[] preamble = length == 0 ? _encoding.GetPreamble() : Array.Empty<byte>();
                byte[] text = _encoding.GetBytes(prefix.ToString());
                if (preamble.Length + text.Length > 0)
                {
                    byte[] bytes = new byte[preamble.Length + text.Length];
                    Buffer.BlockCopy(preamble, 0, bytes, 0, preamble.Length);
                    Buffer.BlockCopy(text, 0, bytes, preamble.Length, text.Length);
                    stream.Write(bytes, 0, bytes.Length);
                }
            }
            catch
            {
                stream.Dispose();
                throw;
            }

            _stream = stream;
            writer.Stream = stream;
            writer.EncodePending();
            CountFrom(length);
            _failing = false;
            _nextExistenceCheck = Stopwatch.GetTimestamp() + Ticks(ExistenceCheckIntervalMs);
            return true;
        }
        catch (Exception ex)
        {
            ReportError(
                $"Could not open the file [{path}]; events are kept in memory and opening is retried.", ex, ErrorCode.FileOpenFailure);
            RetryLater(); // no timer once closed (ArmTimer checks)
            return false;
        }
    }

    /// <summary>Writes the footer (if the file is open) and everything buffered, then closes the file.</summary>
    /// <param name="writeFooter">Write the layout's footer first.</param>
    /// <param name="keepStream">Leave the file open if everything was written (a roll that truncates it next).</param>
    /// <param name="final">The buffer is dropped after this (close, activation again): a last try to open the file for
    /// it, and what still cannot be written is reported as lost.</param>
    private void CloseFile(bool writeFooter, bool keepStream = false, bool final = false)
    {
        final |= _closed;
        EventBufferWriter? writer = _writer;
        if (writer == null)
        {
            return;
        }

        if (_stream == null && _path != null && (writer.HasCompleteEvents || writer.InEvent) && final)
        {
            Open(_path, append: true, recovering: true); // last chance for what is buffered
        }

        string? footer = writeFooter && _stream != null ? Layout?.Footer : null;
        bool flushed = footer == null || FlushWhileClosing(writer);
        if (footer != null && flushed && !writer.HasCompleteEvents && !writer.InEvent)
        {
            // Only once the events are out: a footer left in the buffer by a failed write would open the next file.
            writer.Write(footer);
            writer.EndEvent();
        }

        if (_stream != null && flushed)
        {
            FlushWhileClosing(writer);
        }

        ReportProblems();
        if (final && writer.HasCompleteEvents)
        {
            ReportError(
                $"{writer.CompleteLength} buffered byte(s) could not be written to [{_path}] before closing and are lost.", null, ErrorCode.CloseFailure);
        }

        if (keepStream && !final && _stream != null && !writer.HasCompleteEvents && !writer.InEvent)
        {
            return;
        }

        CloseStream();
    }

    private bool FlushWhileClosing(EventBufferWriter writer)
    {
        try
        {
            writer.Flush();
            return true;
        }
        catch (Exception ex)
        {
            ReportError($"Could not write to the file [{_path}] while closing it.", ex, ErrorCode.CloseFailure);
            return false;
        }
    }

    private void CloseStream()
    {
        Stream? stream = DetachStream();

        if (stream == null)
        {
            return;
        }

        try
        {
            stream.Dispose();
        }
        catch (Exception ex)
        {
            ReportError($"Could not close the file [{_path}].", ex, ErrorCode.CloseFailure);
        }
    }

    /// <summary>Forgets the file's handle without closing it; returns it.</summary>
    private Stream? DetachStream()
    {
        Stream? stream = _stream;
        _stream = null;
        if (_writer != null)
        {
            _writer.Stream = null;
        }

        return stream;
    }

    private static Stream Truncated(Stream stream)
    {
        try
        {
            stream.SetLength(0);
            stream.Position = 0;
            return stream;
        }
        catch
        {
            stream.Dispose(); // Open reports the failure and retries with a fresh handle
            throw;
        }
    }

    private void ArmTimer(int dueMs)
    {
        if (_timerArmed || _closed)
        {
            return;
        }

        if (_timer == null)
        {
            // Without the arming thread's execution context: the timer would otherwise keep that caller's AsyncLocals
            // (an Activity, logical thread context) alive and visible for the appender's lifetime.
            using (ExecutionContext.SuppressFlow())
            {
                _timer = new Timer(OnTimer, null, Timeout.Infinite, Timeout.Infinite);
            }
        }

        _timerArmed = true;
        _timer.Change(dueMs, Timeout.Infinite);
    }

    private void OnTimer(object? state)
    {
        try
        {
            lock (LockObj)
            {
                _timerArmed = false;
                if (_closed || _writer == null)
                {
                    return;
                }

                WriteOut(flushStream: false, force: true);
                ReportProblems();
                if (_failing)
                {
                    ArmTimer(RetryIntervalMs);
                }
            }
        }
        catch (Exception e)
        {
            // A throwing error handler on the timer's thread would end the process.
            LogLog.Error(GetType(), $"Appender [{Name}]: the flush timer failed.", e);
        }
    }

    private static long Ticks(int milliseconds) => milliseconds * Stopwatch.Frequency / 1000;
}
