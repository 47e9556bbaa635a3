using System;
using System.Diagnostics;
using System.IO;
using System.Text;
using System.Threading;
using log4net.Core;
using LowLatencyLog.Runtime;
using LowLatencyLog.Text;

namespace LowLatencyLog.Files;

/// <summary>
/// The file behind a buffered file appender: opens it (byte-order mark, header; <c>FileWriter.Open.cs</c>), writes the
/// buffer's complete events to it, retries a failed open or write, notices a file deleted, replaced or cut short, rolls
/// it at the event boundaries its <see cref="FileSink"/> picks and counts its length for the size rolls
/// (<c>FileWriter.Rolling.cs</c>), takes the locks of its locking model, arms the flush timer, and closes it (footer).
/// </summary>
/// <remarks>
/// The appender calls the lifecycle members (configure, start, flush, close); its <see cref="FileSink"/> the rest.
/// Every member is called under the appender's lock (<c>gate</c>, asserted), which the flush timer takes too. Failures
/// are reported to the <see cref="IFileWriterOwner"/> and never thrown.
/// </remarks>
internal sealed partial class FileWriter
{
    // Retrying a failed open or write from the logging path at most this often keeps an outage from costing a system
    // call per event; the deletion check likewise runs at most this often except on an explicit flush.
    private const int RetryIntervalMs = 1000;

    private const int ExistenceCheckIntervalMs = 1000;

    private readonly IFileSystem _files;

    private readonly IFileWriterOwner _owner;

    private readonly object _gate;

    // Settings, given at each activation (Configure) before a file is opened.
    private Encoding _encoding = null!;

    private bool _immediateFlush;

    private int _flushInterval;

    private RollingPolicy? _rolling; // null for a file that never rolls

    // The file.
    private EventBufferWriter? _writer;

    private Stream? _stream;

    private string? _path;

    private long _lengthAtOpen;

    private long _countMark;

    // The bytes the open wrote ahead of the events (byte-order mark, newline, header), which log4net's count leaves out.
    private long _writtenAtOpen;

    private bool _failing;

    private long _retryAt;

    private long _nextExistenceCheck;

    private Timer? _timer;

    private bool _timerArmed;

    private bool _closed;

    private long _reportedDrops;

    /// <summary>The <c>appendToFile</c> of a first open that failed and is retried; null once a file was opened.</summary>
    private bool? _firstOpen;

    private SharedLock? _sharedLock; // for FileSharing.Shared
    private bool _shared;
    private FileSharing _sharing;

    /// <param name="files">Where files are opened and checked for.</param>
    /// <param name="clock">The time date rolls read, unless the appender's settings give another.</param>
    /// <param name="owner">The appender: header, footer, and where failures go.</param>
    /// <param name="gate">The appender's lock, which the flush timer takes.</param>
    public FileWriter(IFileSystem files, IClock clock, IFileWriterOwner owner, object gate)
    {
        _files = files;
        Clock = clock;
        _owner = owner;
        _gate = gate;
    }

    /// <summary>The time date rolls read, unless the appender's settings give another.</summary>
    public IClock Clock { get; }

    /// <summary>The buffer events are rendered into; null while no file is set (not activated, or refused).</summary>
    public EventBufferWriter? Buffer => _writer;

    /// <summary>The file written (or to be opened again).</summary>
    public string? Path => _path;

    /// <summary>Closed for good: nothing is written any more.</summary>
    public bool Closed => _closed;

    /// <summary>Takes the settings of an activation; <paramref name="rolling"/> keeps the pause of the policy it
    /// replaces.</summary>
    public void Configure(Encoding encoding, bool immediateFlush, int flushInterval, RollingPolicy? rolling)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "called under the appender's lock");
        _encoding = encoding;
        _immediateFlush = immediateFlush;
        _flushInterval = flushInterval;
        rolling?.ContinueFrom(_rolling);
        _rolling = rolling;
    }

    /// <summary>No file is written (the setting is missing): the buffer is dropped.</summary>
    public void Stop()
    {
        Debug.Assert(Monitor.IsEntered(_gate), "called under the appender's lock");
        _writer = null;
    }

    /// <summary>Before the appender is activated again: writes the footer and everything buffered, and closes the file
    /// (what cannot be written is reported as lost).</summary>
    public void Finish()
    {
        Debug.Assert(Monitor.IsEntered(_gate), "called under the appender's lock");
        CloseFile(writeFooter: true, final: true);
    }

    /// <summary>For good: the footer, everything buffered, the file and the locks closed, the timer stopped.</summary>
    public void Close()
    {
        Debug.Assert(Monitor.IsEntered(_gate), "called under the appender's lock");
        _closed = true;
        _timer?.Dispose();
        _timer = null;
        _timerArmed = false;
        CloseFile(writeFooter: true);
        _sharedLock?.Dispose();
        _sharedLock = null;
    }

    /// <summary>Writes every buffered event and flushes the file to the operating system.</summary>
    /// <returns>True if nothing is left in the buffer (or no file is written).</returns>
    public bool Flush()
    {
        Debug.Assert(Monitor.IsEntered(_gate), "called under the appender's lock");
        if (_writer == null || _closed)
        {
            return true;
        }

        bool done = WriteOut(flushStream: true, force: true);
        ReportProblems();
        return done;
    }

    /// <summary>The appender's lock, under which every member is called.</summary>
    internal object Gate => _gate;

    /// <summary>How the file rolls; null for a file that never rolls.</summary>
    internal RollingPolicy? Rolling => _rolling;

    /// <summary>Whether the file is open now (not while a failed open waits for its retry).</summary>
    internal bool IsOpen => _stream != null;

    /// <summary>Whether each append is written and flushed before it returns.</summary>
    internal bool ImmediateFlush => _immediateFlush;

    /// <summary>Whether the last open or write failed: the next attempt waits for <see cref="RetryDue"/>.</summary>
    internal bool Failing => _failing;

    /// <summary>Whether a failed open or write may be tried again now.</summary>
    internal bool RetryDue => Stopwatch.GetTimestamp() >= _retryAt;

    /// <summary>Arms the flush timer for what was buffered, unless it is armed already or the interval is 0.</summary>
    internal void ArmFlushTimer()
    {
        if (!_timerArmed && _flushInterval > 0)
        {
            ArmTimer(_flushInterval);
        }
    }

    /// <summary>
    /// Writes the complete events (and flushes the stream if asked). Opens the file again first if it is not open or,
    /// when the check is due, if it disappeared. Never throws; failures are reported and retried later.
    /// </summary>
    /// <returns>True if nothing is left in the buffer.</returns>
    internal bool WriteOut(bool flushStream, bool force)
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
                _owner.ReportError($"The file [{_path}] was cut short by another program; writing on at its new end.", null, ErrorCode.WriteFailure);
                open.Seek(0, SeekOrigin.End);
            }
            else if (missing || (_stream is FileStream && !IsStillTheFile(_stream, _path!)))
            {
                // Deleted, or replaced by another file (what we would write next would go to a file nobody can open).
                _owner.ReportError(
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
                CountSharedFrom(shared.Length);
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
        _owner.ReportError(
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

    /// <summary>Reports a write failure met inside the writer and events it had to drop.</summary>
    internal void ReportProblems()
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
            _owner.ReportError(
                $"{dropped - _reportedDrops} event(s) dropped whole ({dropped} in all): the buffer reached its limit while the file " +
                $"[{_path}] could not be written, or one event was larger than the limit.", null, ErrorCode.WriteFailure);
            _reportedDrops = dropped;
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

        string? footer = writeFooter && _stream != null ? _owner.Footer : null;
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
            _owner.ReportError(
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
            _owner.ReportError($"Could not write to the file [{_path}] while closing it.", ex, ErrorCode.CloseFailure);
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
            _owner.ReportError($"Could not close the file [{_path}].", ex, ErrorCode.CloseFailure);
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
            WithoutFlow.Run(() => _timer = new Timer(OnTimer, null, Timeout.Infinite, Timeout.Infinite));
        }

        _timerArmed = true;
        _timer!.Change(dueMs, Timeout.Infinite);
    }

    private void OnTimer(object? state)
    {
        try
        {
            lock (_gate)
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
            _owner.ReportTimerFailure(e);
        }
    }

    private static long Ticks(int milliseconds) => milliseconds * Stopwatch.Frequency / 1000;

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
}
