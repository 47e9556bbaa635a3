using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Runtime.CompilerServices;
using System.Text;
using System.Threading;
using LowLatencyLog.Async;
using LowLatencyLog.Capture;
using LowLatencyLog.Core;
using LowLatencyLog.IO;
using LowLatencyLog.Layout;
using LowLatencyLog.Log4netInternals;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using log4net.Util;

namespace LowLatencyLog.Appender;

/// <summary>
/// A file appender that writes the same bytes as log4net's <see cref="FileAppender"/> through one large buffer that
/// holds whole events only. It takes <see cref="FileAppender"/>'s setting names, so a configuration moves over by
/// changing the <c>type</c> attribute.
/// </summary>
/// <remarks>
/// <para>Events are rendered through the layout into the buffer and written to the file in one call when the buffer is
/// full, at the end of each batch (<see cref="IBulkAppender"/>), when the worker of one of this library's async
/// appenders in front runs out of events (it flushes), on <see cref="Flush(int)"/>, on close, and at most
/// <see cref="FlushInterval"/> milliseconds after an event when used on its own. Every write ends where an event ended,
/// so a process killed at any moment leaves a file whose complete lines are whole events.</para>
/// <para>An I/O error goes to the <see cref="AppenderSkeleton.ErrorHandler"/>, never into the application: the events stay
/// in the buffer (up to a bounded size; beyond it whole events are dropped and counted) and the write is retried; the
/// file is opened again if it disappeared.</para>
/// <para>Settings are taken as text and checked when the appender is activated: a bad value is reported through log4net's
/// internal log (setting, value, what is accepted, the default used) and the default applies, so a typo never removes
/// the appender.</para>
/// </remarks>
public class BufferedFileAppender : AppenderSkeleton, ICapturedEventAppender
{
    /// <summary>The default <see cref="BufferSize"/>, in bytes.</summary>
    public const int DefaultBufferSize = 1024 * 1024;

    /// <summary>The default <see cref="FlushInterval"/>, in milliseconds.</summary>
    public const int DefaultFlushInterval = 1000;

    // Retrying a failed open or write from the logging path at most this often keeps an outage from costing a system
    // call per event; the deletion check likewise runs at most this often except on an explicit flush.
    private const int RetryIntervalMs = 1000;
    private const int ExistenceCheckIntervalMs = 1000;

    private static readonly System.Text.Encoding DefaultEncoding = new UTF8Encoding(false);

    // Effective settings, read at ActivateOptions.
    private System.Text.Encoding _encoding = DefaultEncoding;
    private bool _immediateFlush;
    private int _flushInterval = DefaultFlushInterval;
    private bool _fastLayout = true;

    // The fast layout path (guarded by LockObj): the compiled layout, or null to render through the layout; and what it
    // was compiled from, so that a layout set or re-patterned later is compiled again before its first event.
    private CompiledLayout? _compiled;
    private ILayout? _compiledFrom;
    private PatternLayout? _compiledPatternLayout;
    private object? _compiledChain;

    // All of the following is guarded by LockObj (taken by DoAppend, OnClose, Flush and the timer).
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
    private bool _skeletonClosed; // as AppenderSkeleton's own flag: set by Close, never cleared
    private bool _appendingCaptured;
    private System.Threading.Mutex? _sharedLock; // for FileSharing.Shared, unless it could not be created
    private bool _shared;
    private readonly IFileSystem _files;

    /// <summary>An appender that writes to the disk.</summary>
    public BufferedFileAppender()
        : this(DiskFileSystem.Instance)
    {
    }

    /// <summary>An appender that opens its files through <paramref name="files"/>.</summary>
    internal BufferedFileAppender(IFileSystem files) => _files = files;

    /// <summary>The file to write; relative paths are taken from the application's base folder, as log4net does.</summary>
    /// <remarks>Default: none (required). Missing folders are created.</remarks>
    public string? File { get; set; }

    /// <summary>Whether an existing file is appended to (<c>true</c>) or overwritten (<c>false</c>).</summary>
    /// <remarks>Default: <c>true</c>. Accepted: <c>true</c>, <c>false</c>.</remarks>
    public string? AppendToFile { get; set; }

    /// <summary>The text encoding, by name (e.g. <c>utf-8</c>, <c>utf-16</c>, <c>iso-8859-1</c>).</summary>
    /// <remarks>
    /// Default: UTF-8 without a byte-order mark, what log4net uses on .NET. A named encoding that has a byte-order mark
    /// (<c>utf-8</c>, <c>utf-16</c>) writes it at the start of a new or empty file, as log4net does.
    /// </remarks>
    public string? Encoding { get; set; }

    /// <summary>Whether each event is written and flushed to the operating system before the append returns.</summary>
    /// <remarks>
    /// Default: <c>false</c> (log4net's <see cref="FileAppender"/> defaults to <c>true</c>). Accepted: <c>true</c>,
    /// <c>false</c>. With <c>true</c> a batch is still written once, at its end.
    /// </remarks>
    public string? ImmediateFlush { get; set; }

    /// <summary>The buffer's size in bytes: complete events are written to the file when it is full.</summary>
    /// <remarks>
    /// Default: 1048576 (1 MB; the kernel copies large writes into the page cache faster). Accepted: 1024 to 67108864.
    /// The buffer grows for one event larger than itself, and while the file cannot be written it holds events up to the
    /// larger of this size and 16 MB.
    /// </remarks>
    public string? BufferSize { get; set; }

    /// <summary>
    /// Milliseconds after an event by which it is written to the file when nothing else writes it first (no batch end,
    /// full buffer or flush); <c>0</c> = never.
    /// </summary>
    /// <remarks>
    /// Default: 1000. Accepted: 0 to 2147483647. Matters when the appender is used without an async appender in front
    /// and logging goes quiet. A one-shot timer is armed by the first buffered event, so an idle appender costs nothing.
    /// </remarks>
    public string? FlushInterval { get; set; }

    /// <summary>
    /// Whether log4net's <c>PatternLayout</c> and <c>SimpleLayout</c> are rendered by the appender's own compiled
    /// renderer, which writes the same text without allocating and at a fraction of the cost.
    /// </summary>
    /// <remarks>
    /// <para>Default: <c>true</c>. Accepted: <c>true</c>, <c>false</c>. The bytes written are the same either way: a
    /// layout of another type, a layout subclass, converters registered on the layout, or a converter the renderer does
    /// not support (such as <c>%location</c>) make the appender render through the layout as configured. log4net's
    /// internal debug log says which path an appender takes and why.</para>
    /// </remarks>
    public string? FastLayout { get; set; }

    /// <summary>
    /// log4net's <c>lockingModel</c>, typed as log4net's so that <c>&lt;lockingModel type="..." /&gt;</c> configures
    /// it as it does log4net's file appenders.
    /// </summary>
    /// <remarks>
    /// <para>Default: none, which is <see cref="FileAppender.ExclusiveLock"/>: this appender holds the file open from
    /// start to close, other programs may read it, and a second writer (another process, or another appender of this
    /// library) is refused and says so, on Windows and Linux.</para>
    /// <para><see cref="FileAppender.MinimalLock"/> and <see cref="FileAppender.InterProcessLock"/>: several processes
    /// write one file. Each write (a whole batch of whole events) opens the file, appends at its end under a lock all of
    /// them take, and closes it. Any other model gets an error at activation and is written as ExclusiveLock.</para>
    /// </remarks>
    public FileAppender.LockingModelBase? LockingModel { get; set; }


    /// <summary>The writer, for tests.</summary>
    internal EventBufferWriter? Writer => _writer;

    /// <summary>True when events are rendered by the compiled fast layout path, for tests.</summary>
    internal bool UsesFastLayout => _compiled != null;

    /// <summary>Batches taken from an async appender as captured events (no log4net event rebuilt for them).</summary>
    internal long CapturedBatches { get; private set; }

    /// <summary>This appender renders through its layout.</summary>
    protected override bool RequiresLayout => true;

    /// <summary>Reads the settings, reports bad values, and opens the file (writing the layout's header).</summary>
    public override void ActivateOptions()
    {
        base.ActivateOptions();
        PrivateMembers.ReportOnce(GetType());
        lock (LockObj)
        {
            if (_skeletonClosed)
            {
                // As log4net's own file appender, whose Close forgets the file: a closed appender stays closed, and the
                // file keeps what was written (reopening it could truncate it).
                LogLog.Warn(typeof(BufferedFileAppender), $"{GetType().Name} [{Name}] was activated after it was closed; it stays closed.");
                return;
            }

            if (string.IsNullOrWhiteSpace(File) && _writer != null)
            {
                // As log4net: a missing file setting is reported and the file already open is written on.
                LogLog.Warn(typeof(BufferedFileAppender), $"{GetType().Name} [{Name}]: setting 'file' is missing; writing on to [{_path}].");
                return;
            }

            if (_writer != null)
            {
                CloseFile(writeFooter: true, final: true); // this writer and its buffer are replaced
            }

            Action<string> report = ReportSetting;
            bool append = FileSettings.Boolean("appendToFile", AppendToFile, true, report);
            _encoding = FileSettings.Encoding("encoding", Encoding, DefaultEncoding, "UTF-8 without BOM", report);
            _immediateFlush = FileSettings.Boolean("immediateFlush", ImmediateFlush, false, report);
            int bufferSize = SettingReader.Integer("bufferSize", BufferSize, DefaultBufferSize, 1024, 64 * 1024 * 1024, report);
            _flushInterval = SettingReader.Integer("flushInterval", FlushInterval, DefaultFlushInterval, 0, int.MaxValue, report);
            _fastLayout = FileSettings.Boolean("fastLayout", FastLayout, true, report);
            SetLocking(ReadLockingModel(report));
            CompileLayout();
            ReadMoreSettings(report);

            if (string.IsNullOrWhiteSpace(File))
            {
                LogLog.Error(typeof(BufferedFileAppender), $"{GetType().Name} [{Name}]: setting 'file' is missing; nothing will be written.");
                _writer = null;
                return;
            }

            string path = SystemInfo.ConvertToFullPath(File!.Trim());
            _writer = new EventBufferWriter(_encoding, bufferSize);
            _reportedDrops = 0;
            _closed = false;
            try
            {
                if (_shared)
                {
                    // Another process may be rolling these files right now.
                    string start = path;
                    SharedFileStream.UnderLock(_sharedLock, () => start = StartFiles(start, append));
                    path = start;
                }
                else
                {
                    path = StartFiles(path, append);
                }
            }
            catch (Exception ex)
            {
                ReportError($"Could not prepare the files of [{path}].", ex, ErrorCode.GenericFailure);
            }

            // A first open that fails is retried as it was meant: appendToFile=false still truncates, with a header.
            _firstOpen = Open(path, append, recovering: false) ? null : append;
            CrashFlush.Register(this, CrashFlushTimeout, async: false);
        }
    }

    /// <summary>How long the buffer's flush may wait for the appender's lock when the process is dying.</summary>
    private const int CrashFlushTimeout = 1000;

    /// <summary>The <c>appendToFile</c> of a first open that failed and is retried; null once a file was opened.</summary>
    private bool? _firstOpen;

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

    /// <summary>Writes every buffered event to the file and flushes it to the operating system.</summary>
    /// <param name="millisecondsTimeout">How long to wait for an append in progress; -1 waits as long as it takes.</param>
    /// <returns>True if nothing is left in the buffer; false if the file could not be written (reported to the
    /// <see cref="AppenderSkeleton.ErrorHandler"/>) or the wait timed out.</returns>
    public override bool Flush(int millisecondsTimeout)
    {
        if (!Monitor.TryEnter(LockObj, millisecondsTimeout < 0 ? Timeout.Infinite : millisecondsTimeout))
        {
            return false;
        }

        try
        {
            if (_writer == null || _closed)
            {
                return true;
            }

            bool done = WriteOut(flushStream: true, force: true);
            ReportProblems();
            return done;
        }
        finally
        {
            Monitor.Exit(LockObj);
        }
    }

    /// <summary>Checks that the appender was activated with a file, then the base checks (a layout is set).</summary>
    protected override bool PreAppendCheck()
    {
        if (_writer == null)
        {
            ReportError($"No file is open for the appender named [{Name}].");
            return false;
        }

        return base.PreAppendCheck();
    }

    /// <summary>Renders one event into the buffer; it reaches the file when the buffer fills, on a timer or a flush.</summary>
    protected override void Append(LoggingEvent loggingEvent)
    {
        if (_appendingCaptured)
        {
            return; // logged back into this appender while it renders captured events: dropped, as log4net does
        }

        BeforeBatch();
        AppendOne(loggingEvent);
        EndAppend(batch: false);
    }

    /// <summary>Renders a batch into the buffer and writes it with one write and at most one flush.</summary>
    protected override void Append(LoggingEvent[] loggingEvents) => Append((IEnumerable<LoggingEvent>)loggingEvents);

    /// <summary>Renders a batch into the buffer and writes it with one write and at most one flush.</summary>
    /// <remarks>log4net's <c>DoAppend(LoggingEvent[])</c> reaches this overload (not the array one).</remarks>
    protected override void Append(IEnumerable<LoggingEvent> loggingEvents)
    {
        if (_appendingCaptured)
        {
            return;
        }

        BeforeBatch();
        if (loggingEvents is List<LoggingEvent> list)
        {
            // What DoAppend(LoggingEvent[]) passes: indexed, without an enumerator behind an interface.
            for (int i = 0; i < list.Count; i++)
            {
                AppendOne(list[i]);
            }
        }
        else
        {
            foreach (LoggingEvent loggingEvent in loggingEvents)
            {
                AppendOne(loggingEvent);
            }
        }

        EndAppend(batch: true);
    }

    /// <summary>Writes the layout's footer, writes everything buffered and closes the file.</summary>
    protected override void OnClose()
    {
        CrashFlush.Unregister(this);
        _closed = true;
        _skeletonClosed = true;
        _timer?.Dispose();
        _timer = null;
        _timerArmed = false;
        CloseFile(writeFooter: true);
        _sharedLock?.Dispose();
        _sharedLock = null;
        base.OnClose();
    }

    /// <summary>Reads the settings a subclass adds; called under the lock by <see cref="ActivateOptions"/>.</summary>
    private protected virtual void ReadMoreSettings(Action<string> report)
    {
    }

    /// <summary>Prepares the files (rolling ones roll what is left from earlier runs); returns the file to open.</summary>
    private protected virtual string StartFiles(string path, bool append) => path;

    /// <summary>
    /// Called under the lock before the first event of a batch (a single event is a batch of one): where a rolling
    /// appender reads the clock, once per batch rather than per event.
    /// </summary>
    private protected virtual void BeforeBatch()
    {
    }

    /// <summary>Called before each event is rendered, under the lock: where a rolling appender rolls by size.</summary>
    private protected virtual void BeforeEvent()
    {
    }

    /// <summary>The bytes the current file holds, the events still buffered for it included.</summary>
    /// <param name="limit">The caller only needs to know whether the length reaches this value; below it, with
    /// events not yet encoded, an upper bound may be returned instead of the exact length.</param>
    private protected long CurrentFileLength(long limit)
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
    private protected void Roll(Func<Action, string?> roll, Func<bool> append, bool sameFile = false, long sizeLimit = -1)
    {
        if (_shared)
        {
            // Under the lock every writer of the file takes around its writes: no process appends to a file being
            // renamed, and the next write of each goes to the new one.
            SharedFileStream.UnderLock(_sharedLock, () =>
            {
                if (sizeLimit < 0 || SharedFileStillHolds(sizeLimit))
                {
                    RollLocked(roll, append, sameFile);
                }
            });
            return;
        }

        RollLocked(roll, append, sameFile);
    }

    /// <summary>Whether the shared file, read again now, still reaches <paramref name="limit"/> with what is buffered.</summary>
    private bool SharedFileStillHolds(long limit)
    {
        EventBufferWriter writer = _writer!;
        try
        {
            var info = new FileInfo(_path!);
            _lengthAtOpen = info.Exists ? info.Length : 0;
            _countMark = writer.EncodedBytes - writer.CompleteLength;
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

    /// <summary>Whether a file is open now (not while opening fails and is retried).</summary>
    private protected bool HasOpenFile => _stream != null;

    /// <summary>Whether other processes may write the file too (<c>MinimalLock</c>, <c>InterProcessLock</c>).</summary>
    private protected bool SharedFile => _shared;

    /// <summary>Reports an error met while rolling (rename or delete failures).</summary>
    private protected void ReportRollError(string message, Exception? ex) => ReportError(message, ex, ErrorCode.GenericFailure);

    private VisibleReports? _visible;

    /// <summary>
    /// A failure or loss: to the <see cref="AppenderSkeleton.ErrorHandler"/>, and to log4net's internal log (at most a
    /// line a second per kind), where it shows even after the default handler has printed its one error.
    /// </summary>
    private protected void ReportError(string message, Exception? ex = null, ErrorCode? code = null)
    {
        if (VisibleReports.Needed(ErrorHandler))
        {
            (_visible ??= new VisibleReports(GetType())).Error($"Appender [{Name}]: {message}", ex);
        }

        try
        {
            if (ex == null && code == null)
            {
                ErrorHandler.Error(message); // as log4net's own appenders report these
            }
            else
            {
                ErrorHandler.Error(message, ex, code ?? ErrorCode.GenericFailure);
            }
        }
        catch
        {
            // A handler that throws: the internal log has the report; nothing may escape into a log call.
        }
    }

    /// <summary>The sharing a <c>lockingModel</c> asks for; a model of another type is reported and taken as ExclusiveLock.</summary>
    private FileSharing ReadLockingModel(Action<string> report)
    {
        Type? model = LockingModel?.GetType();
        if (model == null || model == typeof(FileAppender.ExclusiveLock))
        {
            return FileSharing.Exclusive;
        }

        if (model == typeof(FileAppender.MinimalLock) || model == typeof(FileAppender.InterProcessLock))
        {
            return FileSharing.Shared;
        }

        report(
            $"Setting 'lockingModel' has the model [{model.FullName}], which is not supported. Accepted: " +
            $"{typeof(FileAppender.ExclusiveLock).FullName} (the default), {typeof(FileAppender.MinimalLock).FullName}, " +
            $"{typeof(FileAppender.InterProcessLock).FullName}. The file is written as with ExclusiveLock: held open by this " +
            "appender alone from start to close. See docs/file-appenders.md, \"Locking models\".");
        return FileSharing.Exclusive;
    }

    private void SetLocking(FileSharing sharing)
    {
        _sharedLock?.Dispose();
        _sharedLock = null;
        _shared = sharing == FileSharing.Shared;
        if (_shared && !string.IsNullOrWhiteSpace(File))
        {
            try
            {
                _sharedLock = FileLocks.CreateSharedLock(SystemInfo.ConvertToFullPath(File!.Trim()));
            }
            catch (Exception ex)
            {
                // A read-only /tmp (where .NET keeps named mutexes on Unix), or a mutex of another account on Windows.
                ReportError(
                    $"Could not create the lock that processes sharing [{File}] take around each write; each write still opens the " +
                    "file and appends whole events, but two processes' writes may now interleave.", ex, ErrorCode.GenericFailure);
            }
        }
    }

    /// <summary>Opens <paramref name="path"/> as the locking model says.</summary>
    private Stream OpenFileStream(string path, bool append) =>
        _shared ? new SharedFileStream(path, append, _sharedLock) : _files.Open(path, append);

    private protected void ReportSetting(string message) =>
        LogLog.Error(typeof(BufferedFileAppender), $"{GetType().Name} [{Name}]: {message}");

    private void AppendOne(LoggingEvent loggingEvent)
    {
        EventBufferWriter writer = _writer!;
        BeforeEvent();
        try
        {
            if (LayoutChanged())
            {
                CompileLayout();
            }

            if (_compiled != null)
            {
                _compiled.Render(writer, loggingEvent);
            }
            else
            {
                RenderLoggingEvent(writer, loggingEvent);
            }

            writer.EndEvent();
        }
        catch (Exception ex)
        {
            DropEvent(writer, ex);
        }
    }

    [MethodImpl(Jit.Optimized)]
    private void AppendOne(CompiledLayout compiled, in CapturedEvent captured)
    {
        EventBufferWriter writer = _writer!;
        BeforeEvent();
        try
        {
            compiled.Render(writer, captured);
            writer.EndEvent();
        }
        catch (Exception ex)
        {
            DropEvent(writer, ex);
        }
    }

    private void DropEvent(EventBufferWriter writer, Exception ex)
    {
        writer.AbandonEvent();
        ReportError("Could not render an event through the layout; the event is dropped.", ex, ErrorCode.GenericFailure);
    }

    /// <inheritdoc/>
    bool ICapturedEventAppender.MayReadEventObjects => !TakesCapturedEvents || Volatile.Read(ref _compiled) == null;

    private bool TakesCapturedEvents =>
        FilterHead == null && (GetType() == typeof(BufferedFileAppender) || GetType() == typeof(RollingBufferedFileAppender));

    /// <summary>Whether the layout was replaced or activated again (a new converter chain) since it was compiled.</summary>
    private bool LayoutChanged() =>
        !ReferenceEquals(Layout, _compiledFrom) ||
        (_compiledPatternLayout != null && !ReferenceEquals(LayoutCompiler.ConverterChain(_compiledPatternLayout), _compiledChain)) ||
        (_compiled != null && _compiled.IgnoresException != _compiledFrom!.IgnoresException);

    /// <inheritdoc/>
    /// <remarks>
    /// Taken when the layout is compiled, no filter is set and the appender is one of this library's own types (a
    /// subclass may override what <c>AppenderSkeleton</c> calls). The steps are <c>DoAppend(LoggingEvent[])</c>'s:
    /// the lock, the closed check, the threshold, <see cref="PreAppendCheck"/> once, the batch, its errors.
    /// </remarks>
    [MethodImpl(Jit.Optimized)]
    bool ICapturedEventAppender.TryAppend(CapturedEvent[] items, int count)
    {
        if (!TakesCapturedEvents)
        {
            return false;
        }

        lock (LockObj)
        {
            if (LayoutChanged())
            {
                CompileLayout();
            }

            CompiledLayout? compiled = _compiled;
            if (compiled == null)
            {
                return false;
            }

            if (_skeletonClosed)
            {
                ReportError("Attempted to append to closed appender named [" + Name + "].");
                return true;
            }

            if (_appendingCaptured)
            {
                return true;
            }

            try
            {
                _appendingCaptured = true;
                CapturedBatches++;
                bool checkedOnce = false;
                for (int i = 0; i < count; i++)
                {
                    ref readonly CapturedEvent captured = ref items[i];
                    if (!IsAsSevereAsThreshold(captured.Level))
                    {
                        continue;
                    }

                    if (!checkedOnce)
                    {
                        if (!PreAppendCheck())
                        {
                            return true;
                        }

                        checkedOnce = true;
                        BeforeBatch();
                    }

                    AppendOne(compiled, captured);
                }

                if (checkedOnce)
                {
                    // Not a write: the worker flushes when its queue runs empty, and while it is behind, the writes are
                    // the buffer's size, which the kernel takes faster than a write per batch (docs/file-appenders.md).
                    EndAppend(batch: false);
                }
            }
            catch (Exception ex)
            {
                ReportError("Failed in Bulk DoAppend", ex);
            }
            finally
            {
                _appendingCaptured = false;
                compiled.Forget();
            }
        }

        return true;
    }

    /// <summary>Compiles the current layout for the fast path, or records why the layout renders itself.</summary>
    private void CompileLayout()
    {
        ILayout? layout = Layout;
        _compiledFrom = layout;
        _compiledPatternLayout = layout as PatternLayout;
        _compiledChain = _compiledPatternLayout != null ? LayoutCompiler.ConverterChain(_compiledPatternLayout) : null;
        string reason;
        if (!_fastLayout)
        {
            _compiled = null;
            reason = "fastLayout is false";
        }
        else
        {
            _compiled = LayoutCompiler.TryCompile(layout, out reason);
        }

        LogLog.Debug(typeof(BufferedFileAppender), _compiled != null
            ? $"{GetType().Name} [{Name}]: fast layout path for {_compiled.Description}."
            : $"{GetType().Name} [{Name}]: rendering through the layout, not the fast layout path: {reason}.");
    }

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
                _lengthAtOpen = shared.Length;
                _countMark = writer.EncodedBytes - writer.CompleteLength;
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
        _failing = true;
        _retryAt = Stopwatch.GetTimestamp() + Ticks(RetryIntervalMs);
        if (ex is ObjectDisposedException || (_stream != null && !_stream.CanSeek))
        {
            // The stream cannot be rewound for the retry: start from a fresh handle.
            CloseStream();
        }

        ArmTimer(RetryIntervalMs);
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
            bool midLine = append && LogFile.EndsMidLine(path, _encoding);
            Stream stream = reuse != null ? Truncated(reuse) : OpenFileStream(path, append);
            try
            {
                long length = stream.CanSeek || stream is SharedFileStream ? stream.Length : 0;
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

                _lengthAtOpen = length;
            }
            catch
            {
                stream.Dispose();
                throw;
            }

            _stream = stream;
            writer.Stream = stream;
            writer.EncodePending();
            _countMark = writer.EncodedBytes - writer.CompleteLength;
            _failing = false;
            _nextExistenceCheck = Stopwatch.GetTimestamp() + Ticks(ExistenceCheckIntervalMs);
            return true;
        }
        catch (Exception ex)
        {
            ReportError(
                $"Could not open the file [{path}]; events are kept in memory and opening is retried.", ex, ErrorCode.FileOpenFailure);
            _failing = true;
            _retryAt = Stopwatch.GetTimestamp() + Ticks(RetryIntervalMs);
            if (!_closed)
            {
                ArmTimer(RetryIntervalMs);
            }

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
