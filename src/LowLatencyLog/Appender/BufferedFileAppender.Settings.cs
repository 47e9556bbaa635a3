using log4net.Appender;

namespace LowLatencyLog.Appender;

// BufferedFileAppender, continued: the settings, as text with log4net's names (read at activation by Configuration/FileAppenderSettings).
public partial class BufferedFileAppender
{
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
}
