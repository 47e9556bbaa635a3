using System;
using System.Collections.Generic;
using System.IO;

using System.Threading;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using log4net.Util;
using LowLatencyLog.Configuration;
using LowLatencyLog.Files;
using LowLatencyLog.Forwarding;
using LowLatencyLog.Layout;
using LowLatencyLog.Log4netInternals;
using LowLatencyLog.Text;

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
public partial class BufferedFileAppender : AppenderSkeleton, ICapturedEventAppender
{
    /// <summary>The default <see cref="BufferSize"/>, in bytes.</summary>
    public const int DefaultBufferSize = FileAppenderSettings.DefaultBufferSize;

    /// <summary>The default <see cref="FlushInterval"/>, in milliseconds.</summary>
    public const int DefaultFlushInterval = FileAppenderSettings.DefaultFlushInterval;

    // Retrying a failed open or write from the logging path at most this often keeps an outage from costing a system
    // call per event; the deletion check likewise runs at most this often except on an explicit flush.
    private const int RetryIntervalMs = 1000;

    private const int ExistenceCheckIntervalMs = 1000;

    // Effective settings, read at ActivateOptions.
    private System.Text.Encoding _encoding = FileAppenderSettings.DefaultEncoding;

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

    private SharedLock? _sharedLock; // for FileSharing.Shared
    private bool _shared;
    private FileSharing _sharing;

    private readonly IFileSystem _files;

    /// <summary>An appender that writes to the disk.</summary>
    public BufferedFileAppender()
        : this(DiskFileSystem.Instance)
    {
    }

    /// <summary>An appender that opens its files through <paramref name="files"/>.</summary>
    internal BufferedFileAppender(IFileSystem files) => _files = files;

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
            FileAppenderSettings settings = FileAppenderSettings.Read(
                AppendToFile, Encoding, ImmediateFlush, BufferSize, FlushInterval, FastLayout, LockingModel, report);
            bool append = settings.AppendToFile;
            _encoding = settings.Encoding;
            _immediateFlush = settings.ImmediateFlush;
            _flushInterval = settings.FlushInterval;
            _fastLayout = settings.FastLayout;
            CompileLayout();
            RollingPolicy? previous = _rolling;
            _rolling = CreateRollingPolicy(report);
            _rolling?.ContinueFrom(previous);

            if (string.IsNullOrWhiteSpace(File))
            {
                LogLog.Error(typeof(BufferedFileAppender), $"{GetType().Name} [{Name}]: setting 'file' is missing; nothing will be written.");
                _writer = null;
                return;
            }

            // As log4net: the lock is named after the absolute path as written, %VARIABLES% expanded only to open files.
            string fullPath = SystemInfo.ConvertToFullPath(File!.Trim());
            string path = Environment.ExpandEnvironmentVariables(fullPath);
            if (!SetLocking(settings.Sharing, fullPath))
            {
                _writer = null; // refused: reported, and nothing is written without the lock
                return;
            }

            _writer = new EventBufferWriter(_encoding, settings.BufferSize);
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

    /// <summary>How the files roll, read from the settings a subclass adds (none: the file never rolls); called under
    /// the lock by <see cref="ActivateOptions"/>.</summary>
    private protected virtual RollingPolicy? CreateRollingPolicy(Action<string> report) => null;

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

    private protected void ReportSetting(string message) =>
        LogLog.Error(typeof(BufferedFileAppender), $"{GetType().Name} [{Name}]: {message}");
}
