using System;
using log4net.Appender;

namespace LowLatencyLog.Async;

/// <summary>What the worker's sink needs from the appender that owns it.</summary>
internal interface IAsyncAppenderHost
{
    /// <summary>The appender's name, for diagnostics.</summary>
    string Name { get; }

    /// <summary>The public appender type: the logger name of the discard warning, the source of internal messages.</summary>
    Type DeclaringType { get; }

    /// <summary>The children now attached (a snapshot; attaching or removing replaces the array).</summary>
    IAppender[] Children { get; }

    /// <summary>Any thread. Reports through the appender's error handler; never throws.</summary>
    void ReportError(string message, Exception? exception);
}
