using System;
using log4net.Core;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Engine;

namespace LowLatencyLog.Configuration;

/// <summary>
/// The shared settings of the async appenders, read from their text once, at activation. A bad value is reported
/// through <c>reportError</c> (setting, value, accepted values, default) and the documented default is used.
/// </summary>
internal sealed class AsyncAppenderSettings
{
    public const int DefaultBufferSize = 8192;
    public const int MaxBufferSize = 1 << 24;
    public const int DefaultShutdownTimeout = 5000;
    public const OverflowAction DefaultOverflow = OverflowAction.Block;
    public const string DefaultFix = "Auto";
    public const WaitStrategyKind DefaultWaitStrategy = WaitStrategyKind.Adaptive;
    public static readonly Level DefaultDiscardThreshold = Level.Info;
    public const ProducerType DefaultProducerType = ProducerType.Multi; // the Disruptor appender's producerType

    public int BufferSize { get; private set; } = DefaultBufferSize;

    public OverflowAction Overflow { get; private set; } = DefaultOverflow;

    public Level DiscardThreshold { get; private set; } = DefaultDiscardThreshold;

    /// <summary>Null for <c>Auto</c>; otherwise the normalized explicit flags.</summary>
    public FixFlags? Fix { get; private set; }

    public int ShutdownTimeout { get; private set; } = DefaultShutdownTimeout;

    public WaitStrategyKind WaitStrategy { get; private set; } = DefaultWaitStrategy;

    public static AsyncAppenderSettings Read(
        string? bufferSize, string? overflow, string? discardThreshold, string? fix, string? shutdownTimeout, string? waitStrategy,
        bool supportsGrow, bool bufferSizePowerOfTwo, Action<string> reportError)
    {
        var settings = new AsyncAppenderSettings
        {
            BufferSize = SettingReader.Integer("bufferSize", bufferSize, DefaultBufferSize, 1, MaxBufferSize, reportError, bufferSizePowerOfTwo),
            Overflow = supportsGrow
                ? SettingReader.Name("overflow", overflow, DefaultOverflow, reportError)
                : SettingReader.Name("overflow", overflow, DefaultOverflow, reportError, OverflowAction.Grow),
            DiscardThreshold = ReadLevel(discardThreshold, reportError),
            Fix = ReadFix(fix, reportError),
            ShutdownTimeout = SettingReader.Integer("shutdownTimeout", shutdownTimeout, DefaultShutdownTimeout, 0, int.MaxValue, reportError),
            WaitStrategy = SettingReader.Name("waitStrategy", waitStrategy, DefaultWaitStrategy, reportError),
        };
        return settings;
    }

    /// <summary>The flags an explicit <c>fix</c> names, or null for <c>Auto</c> (also when the text is invalid).</summary>
    public static FixFlags? ReadFix(string? text, Action<string> reportError)
    {
        if (text == null || string.Equals(text.Trim(), "Auto", StringComparison.OrdinalIgnoreCase))
        {
            return null;
        }

        string? problem = null;
        FixFlags flags = SettingReader.Flags("fix", text, FixFlags.None, message => problem = message);
        if (problem != null)
        {
            // SettingReader's message would name FixFlags.None as the default; the default here is Auto.
            reportError(SettingReader.Message(
                "fix", text, $"Auto, or names from {string.Join(", ", Enum.GetNames(typeof(FixFlags)))} separated by commas", DefaultFix));
            return null;
        }

        return FixResolver.Normalize(flags);
    }

    /// <summary>
    /// A level name as log4net's <c>threshold</c> takes it: a level the configuration defines (a custom one, or a
    /// predefined name given another value) is looked up in the repositories' level maps, so it means what it means
    /// for <c>threshold</c>; otherwise one of log4net's predefined levels.
    /// </summary>
    public static Level ReadLevel(string? text, Action<string> reportError)
    {
        Level? defined = text == null ? null : DefinedLevel(text.Trim());
        if (defined != null)
        {
            return defined;
        }

        return ToLevel(SettingReader.Name(
            "discardThreshold", text, StandardLevel.Info,
            message => reportError(message.Replace(". Using the default", ", or a level the configuration defines (<level>). Using the default"))));
    }

    private static Level? DefinedLevel(string name)
    {
        if (name.Length == 0)
        {
            return null;
        }

        Level? found = null;
        try
        {
            foreach (log4net.Repository.ILoggerRepository repository in log4net.LogManager.GetAllRepositories())
            {
                Level? level = repository.LevelMap[name];
                if (level == null)
                {
                    continue;
                }

                // A repository that defines the name itself wins over one that only knows the predefined level.
                if (!IsPredefined(level))
                {
                    return level;
                }

                found ??= level;
            }
        }
        catch (Exception)
        {
            // A repository that cannot be asked: the predefined names still work.
        }

        return found;
    }

    private static bool IsPredefined(Level level)
    {
        foreach (StandardLevel standard in (StandardLevel[])Enum.GetValues(typeof(StandardLevel)))
        {
            Level predefined = ToLevel(standard);
            if (predefined.Value == level.Value && string.Equals(predefined.Name, level.Name, StringComparison.Ordinal))
            {
                return true;
            }
        }

        return false;
    }

    private static Level ToLevel(StandardLevel level) => level switch
    {
        StandardLevel.Off => Level.Off,
        StandardLevel.Emergency => Level.Emergency,
        StandardLevel.Fatal => Level.Fatal,
        StandardLevel.Alert => Level.Alert,
        StandardLevel.Critical => Level.Critical,
        StandardLevel.Severe => Level.Severe,
        StandardLevel.Error => Level.Error,
        StandardLevel.Warn => Level.Warn,
        StandardLevel.Notice => Level.Notice,
        StandardLevel.Info => Level.Info,
        StandardLevel.Debug => Level.Debug,
        StandardLevel.Fine => Level.Fine,
        StandardLevel.Trace => Level.Trace,
        StandardLevel.Finer => Level.Finer,
        StandardLevel.Verbose => Level.Verbose,
        StandardLevel.Finest => Level.Finest,
        _ => Level.All,
    };

    /// <summary>log4net's predefined level names, so <see cref="SettingReader"/> can validate and list them.</summary>
    private enum StandardLevel
    {
        Off,
        Emergency,
        Fatal,
        Alert,
        Critical,
        Severe,
        Error,
        Warn,
        Notice,
        Info,
        Debug,
        Fine,
        Trace,
        Finer,
        Verbose,
        Finest,
        All,
    }
}
