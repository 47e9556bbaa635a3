using System;
using System.IO;
using System.Linq;
using System.Text;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;

namespace LowLatencyLog.Tests.Support;

/// <summary>Events, files and activation for the suites that drive a <see cref="BufferedFileAppender"/>.</summary>
internal static class FileAppenderTesting
{
    /// <summary>The text of event <paramref name="i"/>: ASCII, then up to 39 two-byte characters.</summary>
    public static string EventText(int i) => $"event {i} " + new string('é', i % 40);

    public static LoggingEvent[] Events(int first, int count) =>
        Enumerable.Range(first, count)
            .Select(i => new LoggingEvent(typeof(FileAppenderTesting), null, "App", Level.Info, EventText(i), null))
            .ToArray();

    public static string[] Lines(RecordingStream stream) =>
        Encoding.UTF8.GetString(stream.ToArray()).Split('\n', StringSplitOptions.RemoveEmptyEntries);

    /// <summary>The file's text, read while the appender holds it open.</summary>
    public static string ReadShared(string path)
    {
        using var reader = new StreamReader(new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete));
        return reader.ReadToEnd();
    }

    /// <summary>Files that are all <paramref name="stream"/>.</summary>
    public static TestFiles Over(Stream stream) => new TestFiles(open: (path, append) => stream, exists: path => true);

    /// <summary>Activates <paramref name="appender"/> with a file name and a <c>%message%newline</c> layout unless set.</summary>
    public static T Activate<T>(T appender) where T : BufferedFileAppender
    {
        appender.File ??= "injected.log";

        if (appender.Layout == null)
        {
            var layout = new PatternLayout("%message%newline");
            layout.ActivateOptions();
            appender.Layout = layout;
        }

        appender.ActivateOptions();
        return appender;
    }
}
