using System;
using System.Diagnostics;
using System.IO;
using System.Text;
using System.Threading;
using log4net.Core;
using LowLatencyLog.Text;

namespace LowLatencyLog.Files;

/// <summary>
/// The file behind a buffered file appender: opens it (byte-order mark, header), writes the buffer's complete events
/// to it, retries a failed open or write, notices a file deleted, replaced or cut short, counts its length for the size
/// rolls, rolls it at event boundaries, takes the locks of its locking model, arms the flush timer, and closes it
/// (footer).
/// </summary>
/// <remarks>
/// Every member is called under the appender's lock (<c>gate</c>, asserted), which the flush timer takes too. Failures
/// are reported to the <see cref="IFileWriterOwner"/> and never thrown.
/// </remarks>
internal sealed class FileWriter
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

    /// <summary>Takes the locks of <paramref name="sharing"/>, prepares the files (a rolling policy rolls what earlier
    /// runs left) and opens the file (a failed open is reported and retried).</summary>
    /// <param name="fullPath">The path as written, absolute: the shared lock's name.</param>
    /// <param name="path">The file, environment variables expanded.</param>
    /// <param name="sharing">The locking model.</param>
    /// <param name="bufferSize">The buffer's size in bytes.</param>
    /// <param name="append">False to truncate the file.</param>
    /// <param name="rollingLock">Take a rolling lock, as log4net's own appender for these settings does.</param>
    /// <returns>False if the shared lock could not be had (reported): nothing is written.</returns>
    public bool Start(string fullPath, string path, FileSharing sharing, int bufferSize, bool append, bool rollingLock)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "called under the appender's lock");
        if (!SetLocking(sharing, fullPath, rollingLock))
        {
            _writer = null; // refused: reported, and nothing is written without the lock
            return false;
        }

        _writer = new EventBufferWriter(_encoding, bufferSize);
        _reportedDrops = 0;
        _closed = false;
        try
        {
            if (_shared)
            {
                // Another process may be rolling these files right now.
                string start = path;
                _sharedLock!.EnterRoll();
                try
                {
                    start = StartFiles(start, append);
                }
                finally
                {
                    _sharedLock.ExitRoll();
                }

                path = start;
            }
            else
            {
                path = StartFiles(path, append);
            }
        }
        catch (Exception ex)
        {
            _owner.ReportError($"Could not prepare the files of [{path}].", ex, ErrorCode.GenericFailure);
        }

        // A first open that fails is retried as it was meant: appendToFile=false still truncates, with a header.
        _firstOpen = Open(path, append, recovering: false) ? null : append;
        return true;
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

    /// <summary>Before the first event of a batch (a single event is a batch of one): a date roll, the clock read once
    /// per batch rather than per event.</summary>
    public void BeforeBatch()
    {
        Debug.Assert(Monitor.IsEntered(_gate), "called under the appender's lock");
        RollingPolicy? rolling = _rolling;
        if (rolling != null && rolling.DateRollDue())
        {
            Roll(rolling, byDate: true);
        }
    }

    /// <summary>Before each event is rendered: a size roll.</summary>
    public void BeforeEvent()
    {
        Debug.Assert(Monitor.IsEntered(_gate), "called under the appender's lock");
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
            Roll(rolling, byDate: false);
            rolling.AfterSizeRoll();
        }
    }

    /// <summary>After the events of an append are rendered: written out at a batch's end or with immediateFlush, else
    /// on the timer (or a retry when one is due).</summary>
    public void EndAppend(bool batch)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "called under the appender's lock");
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

    /// <summary>Counts the file's length from here on: <paramref name="fileLength"/> bytes in the file, and what the
    /// writer encodes from now (the size rolls read it, <see cref="CurrentFileLength"/>).</summary>
    private void CountFrom(long fileLength)
    {
        EventBufferWriter writer = _writer!;
        _lengthAtOpen = fileLength;
        _countMark = writer.EncodedBytes - writer.CompleteLength;
    }

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
            _owner.ReportError(
                $"{dropped - _reportedDrops} event(s) dropped whole ({dropped} in all): the buffer reached its limit while the file " +
                $"[{_path}] could not be written, or one event was larger than the limit.", null, ErrorCode.WriteFailure);
            _reportedDrops = dropped;
        }
    }

    /// <summary>Opens the file again after a failure: as the first open meant to, if that one never succeeded.</summary>
    private bool Reopen()
    {
        bool? first = _firstOpen;
        bool opened = first is { } append ? Open(_path!, append, recovering: false) : Open(_path!, append: true, recovering: true);
        if (opened)
        {
            _firstOpen = null;
        }

        return opened;
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

                string? header = _owner.Header;
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
                    System.Buffer.BlockCopy(preamble, 0, bytes, 0, preamble.Length);
                    System.Buffer.BlockCopy(text, 0, bytes, preamble.Length, text.Length);
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
            _owner.ReportError(
                $"Could not open the file [{path}]; events are kept in memory and opening is retried.", ex, ErrorCode.FileOpenFailure);
            RetryLater(); // no timer once closed (ArmTimer checks)
            return false;
        }
    }

    /// <summary>Closes the current file for a roll: the footer, then the buffered events; with
    /// <paramref name="keepStream"/> (a size roll that truncates the same file) the handle stays open if everything was
    /// written.</summary>
    internal void CloseForRoll(bool keepStream) => CloseFile(writeFooter: true, keepStream: keepStream);

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

    /// <summary>
    /// Rolls at an event boundary: the policy closes the current file (footer, buffered events written), renames the
    /// files and returns the file to open next, which is truncated unless the current file could not be moved away and
    /// keeps its events.
    /// </summary>
    /// <remarks>A size roll of a file shared with other processes happens only if the file still holds the limit
    /// (another process may have rolled it meanwhile).</remarks>
    private void Roll(RollingPolicy rolling, bool byDate)
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
            CountFrom(info.Exists ? info.Length : 0);
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

    /// <summary>Prepares the files (a rolling policy rolls what is left from earlier runs); returns the file to open.</summary>
    private string StartFiles(string path, bool append) =>
        _rolling?.Start(path, append, _shared, (message, ex) => _owner.ReportError(message, ex, ErrorCode.GenericFailure)) ?? path;

    /// <summary>Sets up the locking model; false (reported) if the shared lock it needs cannot be had.</summary>
    private bool SetLocking(FileSharing sharing, string fullPath, bool rollingLock)
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
            _sharedLock = SharedLock.Create(fullPath, rollingLock);
            return true;
        }
        catch (IOException ex)
        {
            // Refused as a second writer under ExclusiveLock is: writes without the lock could overwrite others' lines.
            _owner.ReportError($"The file [{fullPath}] is not written: {ex.Message}", ex, ErrorCode.FileOpenFailure);
            _owner.ReportSetting(ex.Message);
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
