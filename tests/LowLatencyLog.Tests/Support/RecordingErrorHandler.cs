using System;
using System.Collections.Generic;
using log4net.Core;

namespace LowLatencyLog.Tests.Support;

/// <summary>An appender's error handler that keeps every report (log4net's default reports only the first).</summary>
public sealed class RecordingErrorHandler : IErrorHandler
{
    private readonly List<string> _errors = new List<string>();

    public string[] Errors
    {
        get { lock (_errors) return _errors.ToArray(); }
    }

    public void Error(string message, Exception? e, ErrorCode errorCode) => Add($"{errorCode}: {message} {e?.GetType().Name}: {e?.Message}");

    public void Error(string message, Exception? e) => Add($"{message} {e?.GetType().Name}: {e?.Message}");

    public void Error(string message) => Add(message);

    private void Add(string text)
    {
        lock (_errors)
        {
            _errors.Add(text);
        }
    }
}
