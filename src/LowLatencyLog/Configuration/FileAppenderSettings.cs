using System;
using System.Text;
using log4net.Appender;
using LowLatencyLog.Files;

namespace LowLatencyLog.Configuration;

/// <summary>
/// The file appenders' settings, read from their text once, at activation, with log4net's names. A bad value is
/// reported through <c>reportError</c> (setting, value, accepted values, default) and the default is used.
/// </summary>
internal sealed class FileAppenderSettings
{
    public const int DefaultBufferSize = 1024 * 1024;
    public const int MinBufferSize = 1024;
    public const int MaxBufferSize = 64 * 1024 * 1024;
    public const int DefaultFlushInterval = 1000;
    public static readonly Encoding DefaultEncoding = new UTF8Encoding(false);
    private const string DefaultEncodingName = "UTF-8 without BOM";

    public bool AppendToFile { get; private set; } = true;

    public Encoding Encoding { get; private set; } = DefaultEncoding;

    public bool ImmediateFlush { get; private set; }

    public int BufferSize { get; private set; } = DefaultBufferSize;

    public int FlushInterval { get; private set; } = DefaultFlushInterval;

    public bool FastLayout { get; private set; } = true;

    public FileSharing Sharing { get; private set; } = FileSharing.Exclusive;

    public static FileAppenderSettings Read(
        string? appendToFile, string? encoding, string? immediateFlush, string? bufferSize, string? flushInterval, string? fastLayout,
        FileAppender.LockingModelBase? lockingModel, Action<string> reportError)
    {
        var defaults = new FileAppenderSettings();
        return new FileAppenderSettings
        {
            AppendToFile = SettingReader.Boolean("appendToFile", appendToFile, defaults.AppendToFile, reportError),
            Encoding = SettingReader.Encoding("encoding", encoding, DefaultEncoding, DefaultEncodingName, reportError),
            ImmediateFlush = SettingReader.Boolean("immediateFlush", immediateFlush, defaults.ImmediateFlush, reportError),
            BufferSize = SettingReader.Integer("bufferSize", bufferSize, DefaultBufferSize, MinBufferSize, MaxBufferSize, reportError),
            FlushInterval = SettingReader.Integer("flushInterval", flushInterval, DefaultFlushInterval, 0, int.MaxValue, reportError),
            FastLayout = SettingReader.Boolean("fastLayout", fastLayout, defaults.FastLayout, reportError),
            Sharing = ReadLockingModel(lockingModel, reportError),
        };
    }

    /// <summary>The sharing a <c>lockingModel</c> asks for; a model of another type is reported and taken as ExclusiveLock.</summary>
    private static FileSharing ReadLockingModel(FileAppender.LockingModelBase? lockingModel, Action<string> reportError)
    {
        Type? model = lockingModel?.GetType();
        if (model == null || model == typeof(FileAppender.ExclusiveLock))
        {
            return FileSharing.Exclusive;
        }

        if (model == typeof(FileAppender.MinimalLock) || model == typeof(FileAppender.InterProcessLock))
        {
            return FileSharing.Shared;
        }

        if (model == typeof(FileAppender.NoLock))
        {
            return FileSharing.None;
        }

        reportError(
            $"Setting 'lockingModel' has the model [{model.FullName}], which is not supported. Accepted: " +
            $"{typeof(FileAppender.ExclusiveLock).FullName} (the default), {typeof(FileAppender.MinimalLock).FullName}, " +
            $"{typeof(FileAppender.InterProcessLock).FullName}, {typeof(FileAppender.NoLock).FullName}. The file is written as " +
            "with ExclusiveLock: held open by this appender alone from start to close. See docs/file-appenders.md, \"Locking models\".");
        return FileSharing.Exclusive;
    }
}
