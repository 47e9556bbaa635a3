using System;
using log4net.Core;

namespace LowLatencyLog.Files;

/// <summary>What a <see cref="FileWriter"/> and its <see cref="FileSink"/> take from the appender they write for: the
/// layout's header and footer, read when a file is opened or closed, and where their failures are reported.</summary>
internal interface IFileWriterOwner
{
    /// <summary>The layout's header, written at the start of each file; null for none.</summary>
    string? Header { get; }

    /// <summary>The layout's footer, written at the end of each file; null for none.</summary>
    string? Footer { get; }

    /// <summary>A failure or loss, for the appender's error handler.</summary>
    void ReportError(string message, Exception? ex = null, ErrorCode? code = null);

    /// <summary>A setting that cannot be honoured, for log4net's internal log.</summary>
    void ReportSetting(string message);

    /// <summary>The flush timer failed on its own thread (nothing may be thrown there).</summary>
    void ReportTimerFailure(Exception ex);
}
