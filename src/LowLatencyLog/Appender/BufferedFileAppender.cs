using System;
using System.Collections.Generic;
using System.Threading;
using log4net.Appender;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Capture;
using LowLatencyLog.Configuration;
using LowLatencyLog.Files;
using LowLatencyLog.Forwarding;
using LowLatencyLog.Layout;
using LowLatencyLog.Log4netInternals;

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
public class BufferedFileAppender : AppenderSkeleton, ICapturedEventAppender, IFileWriterOwner
{
    /// <summary>The default <see cref="BufferSize"/>, in bytes.</summary>
    public const int DefaultBufferSize = FileAppenderSettings.DefaultBufferSize;

    /// <summary>The default <see cref="FlushInterval"/>, in milliseconds.</summary>
    public const int DefaultFlushInterval = FileAppenderSettings.DefaultFlushInterval;

    /// <summary>How long the buffer's flush may wait for the appender's lock when the process is dying.</summary>
    private const int CrashFlushTimeout = 1000;

    // The file, the sink each append is handed to, the layout it renders with and the async appenders' batches' way in
    // (with the closed and re-entrancy flags): used under LockObj (taken by DoAppend, OnClose, Flush and the writer's
    // timer).
    private readonly FileWriter _file;

    private readonly FileSink _sink;

    private readonly AppenderLayout _layout;

    private readonly FileBatchTarget<CapturedEvent, CapturedEventRenderer, AppenderLayout.Batches> _batches;

    // This library's own type, not a subclass (which may override what AppenderSkeleton calls): it takes captured events.
    private readonly bool _takesCapturedEvents;

    private VisibleReports? _visible;

    /// <summary>An appender that writes to the disk and reads the local time.</summary>
    public BufferedFileAppender()
        : this(DiskFileSystem.Instance, SystemClock.Instance)
    {
    }

    /// <summary>An appender that opens its files through <paramref name="files"/>.</summary>
    internal BufferedFileAppender(IFileSystem files)
        : this(files, SystemClock.Instance)
    {
    }

    /// <summary>An appender that opens its files through <paramref name="files"/>; date rolls read
    /// <paramref name="clock"/> unless the settings give another.</summary>
    internal BufferedFileAppender(IFileSystem files, IClock clock)
    {
        _file = new FileWriter(files, clock, this, LockObj);
        _sink = new FileSink(_file, this);
        _layout = new AppenderLayout(this, typeof(BufferedFileAppender));
        _batches = new FileBatchTarget<CapturedEvent, CapturedEventRenderer, AppenderLayout.Batches>(this, LockObj, _sink, _layout.ForBatches(), this);
        _takesCapturedEvents = GetType() == typeof(BufferedFileAppender) || GetType() == typeof(RollingBufferedFileAppender);
    }

    /// <summary>Whether the compiled fast layout path renders this appender's events; false when the layout renders
    /// them itself (<see cref="FastLayout"/> is <c>false</c>, or the layout or one of its converters is not covered:
    /// docs/file-appenders.md, "Fast layout").</summary>
    /// <remarks>Known once <see cref="ActivateOptions"/> returns; a layout replaced or activated again is examined
    /// before the next event, and this answers for it from then on.</remarks>
    public bool UsesFastLayout => _layout.Compiled != null;

    /// <summary>This appender renders through its layout.</summary>
    protected override bool RequiresLayout => true;

    // The settings, as text with log4net's names (read at activation by Configuration/FileAppenderSettings).

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
    /// them take (the named mutex log4net's own InterProcessLock takes for the file, so log4net's appenders in other
    /// processes are excluded too), and closes it. If that lock cannot be created the file is refused, loudly.</para>
    /// <para><see cref="FileAppender.NoLock"/>: held open as with ExclusiveLock, but other writers may open the file too,
    /// unprotected, as with log4net. Any other model gets an error at activation and is written as ExclusiveLock.</para>
    /// </remarks>
    public FileAppender.LockingModelBase? LockingModel { get; set; }

    /// <summary>Reads the settings, reports bad values, and opens the file (writing the layout's header).</summary>
    public override void ActivateOptions()
    {
        base.ActivateOptions();
        PrivateMembers.ReportOnce(GetType());
        lock (LockObj)
        {
            if (_batches.Closed)
            {
                // As log4net's own file appender, whose Close forgets the file: a closed appender stays closed, and the
                // file keeps what was written (reopening it could truncate it).
                LogLog.Warn(typeof(BufferedFileAppender), $"{GetType().Name} [{Name}] was activated after it was closed; it stays closed.");
                return;
            }

            if (string.IsNullOrWhiteSpace(File) && _file.Buffer != null)
            {
                // As log4net: a missing file setting is reported and the file already open is written on.
                LogLog.Warn(typeof(BufferedFileAppender), $"{GetType().Name} [{Name}]: setting 'file' is missing; writing on to [{_file.Path}].");
                return;
            }

            _file.Finish(); // the file and its buffer are replaced

            Action<string> report = ReportSetting;
            FileAppenderSettings settings = FileAppenderSettings.Read(
                AppendToFile, Encoding, ImmediateFlush, BufferSize, FlushInterval, FastLayout, LockingModel, report);
            _layout.Activate(settings.FastLayout);
            _file.Configure(settings.Encoding, settings.ImmediateFlush, settings.FlushInterval, CreateRollingPolicy(report, _file.Clock));

            if (string.IsNullOrWhiteSpace(File))
            {
                LogLog.Error(typeof(BufferedFileAppender), $"{GetType().Name} [{Name}]: setting 'file' is missing; nothing will be written.");
                _file.Stop();
                return;
            }

            // As log4net: the lock is named after the absolute path as written, %VARIABLES% expanded only to open files.
            string fullPath = SystemInfo.ConvertToFullPath(File!.Trim());
            string path = Environment.ExpandEnvironmentVariables(fullPath);
            if (!_file.Start(fullPath, path, settings.Sharing, settings.BufferSize, settings.AppendToFile, Rolls))
            {
                return; // refused (reported): nothing is written without the lock
            }

            CrashFlush.Register(this, CrashFlushTimeout, async: false);
        }
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
            return _file.Flush();
        }
        finally
        {
            Monitor.Exit(LockObj);
        }
    }

    /// <summary>Checks that the appender was activated with a file, then the base checks (a layout is set).</summary>
    protected override bool PreAppendCheck()
    {
        if (_file.Buffer == null)
        {
            ReportError(FileSink.NoFileOpen(Name));
            return false;
        }

        return base.PreAppendCheck();
    }

    /// <summary>Renders one event into the buffer; it reaches the file when the buffer fills, on a timer or a flush.</summary>
    protected override void Append(LoggingEvent loggingEvent)
    {
        if (_batches.Appending)
        {
            return; // logged back into this appender while it renders captured events: dropped, as log4net does
        }

        _sink.Append(loggingEvent, _layout.ForLoggingEvents());
    }

    /// <summary>Renders a batch into the buffer and writes it with one write and at most one flush.</summary>
    protected override void Append(LoggingEvent[] loggingEvents) => Append((IEnumerable<LoggingEvent>)loggingEvents);

    /// <summary>Renders a batch into the buffer and writes it with one write and at most one flush.</summary>
    /// <remarks>log4net's <c>DoAppend(LoggingEvent[])</c> reaches this overload (not the array one).</remarks>
    protected override void Append(IEnumerable<LoggingEvent> loggingEvents)
    {
        if (_batches.Appending)
        {
            return;
        }

        _sink.Append(loggingEvents, _layout.ForLoggingEvents());
    }

    /// <summary>Writes the layout's footer, writes everything buffered and closes the file.</summary>
    protected override void OnClose()
    {
        CrashFlush.Unregister(this);
        _batches.Close();
        _file.Close();
        base.OnClose();
    }

    /// <summary>How the files roll, read from the settings a subclass adds (none: the file never rolls); called under
    /// the lock by <see cref="ActivateOptions"/>; <paramref name="clock"/> is the time date rolls read by default.</summary>
    private protected virtual RollingPolicy? CreateRollingPolicy(Action<string> report, IClock clock) => null;

    /// <summary>Whether log4net's own appender for these settings takes a rolling lock (RollingFileAppender does).</summary>
    private protected virtual bool Rolls => false;

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

    string? IFileWriterOwner.Header => Layout?.Header;

    string? IFileWriterOwner.Footer => Layout?.Footer;

    void IFileWriterOwner.ReportError(string message, Exception? ex, ErrorCode? code) => ReportError(message, ex, code);

    void IFileWriterOwner.ReportSetting(string message) => ReportSetting(message);

    void IFileWriterOwner.ReportTimerFailure(Exception ex) =>
        LogLog.Error(GetType(), $"Appender [{Name}]: the flush timer failed.", ex);

    /// <inheritdoc/>
    /// <remarks>
    /// This library's own types only (a subclass may override what <c>AppenderSkeleton</c> calls). The batch is taken
    /// when the layout is compiled and no filter is set, with <c>DoAppend(LoggingEvent[])</c>'s steps
    /// (<see cref="FileBatchTarget{TEvent, TRenderer, TRenderers}"/>).
    /// </remarks>
    IBatchTarget<CapturedEvent>? ICapturedEventAppender.Target => _takesCapturedEvents ? _batches : null;

    /// <inheritdoc/>
    bool ICapturedEventAppender.MayReadEventObjects => !_takesCapturedEvents || FilterHead != null || _layout.Compiled == null;
}
