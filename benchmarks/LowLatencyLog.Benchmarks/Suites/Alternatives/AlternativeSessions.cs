using System;
using System.IO;
using LowLatencyLog.Benchmarks.Cases;
using Microsoft.Extensions.Logging;
using NLog;
using NLog.Config;
using NLog.Targets;
using NLog.Targets.Wrappers;
using Serilog;
using Serilog.Core;
using Serilog.Events;
using ZLogger;
using LogLevel = Microsoft.Extensions.Logging.LogLevel;

namespace LowLatencyLog.Benchmarks.Alternatives;

// Each alternative writes the same line as log4net's "%date [%thread] %-5level %logger - %message%newline":
// "2026-11-22 21:08:00,123 [12] INFO  Bench - Order 4711 ...". Settings are the framework's defaults except the
// layout, a queue as large as ours, and blocking when full (their defaults drop events, ours do not). Each writes the
// message kinds with its own API as its users would (generic overloads, message templates, ZLogger's interpolated
// handler), formatting invariantly so that the lines match log4net's.

/// <summary>NLog: <c>AsyncTargetWrapper</c> in front of a <c>FileTarget</c>.</summary>
internal sealed class NLogSession : BenchSession
{
    private const string Layout = @"${date:format=yyyy-MM-dd HH\:mm\:ss,fff} [${threadid}] ${level:uppercase=true:padding=-5} ${logger} - ${message}";

    private readonly LogFactory _factory = new LogFactory();
    private readonly NLog.Logger _logger;

    public NLogSession(int queueLimit, MessageKind kind)
        : base(NewFolder(), kind)
    {
        _factory.DefaultCultureInfo = System.Globalization.CultureInfo.InvariantCulture;
        var file = new FileTarget("file") { FileName = Path.Combine(Folder, "app.log"), Layout = Layout };
        var async = new AsyncTargetWrapper("async", file)
        {
            QueueLimit = queueLimit,
            OverflowAction = AsyncTargetWrapperOverflowAction.Block,
        };
        var config = new LoggingConfiguration(_factory);
        config.AddRuleForAllLevels(async);
        _factory.Configuration = config;
        _logger = _factory.GetLogger(BenchMessage.Logger);
    }

    public override void Log(int i)
    {
        switch (Kind)
        {
            case MessageKind.Format1:
                _logger.Info(MessageKinds.Format1, i);
                break;
            case MessageKind.Format3:
                _logger.Info(MessageKinds.Format3, i, MessageKinds.Price, MessageKinds.Venue);
                break;
            case MessageKind.Interpolated:
                _logger.Info(MessageKinds.Interpolate(i));
                break;
            case MessageKind.Constant:
                _logger.Info(BenchMessage.Text);
                break;
            default:
                if (MessageKinds.IsError(i))
                {
                    _logger.Error(MessageKinds.Failure, MessageKinds.ErrorText);
                }
                else
                {
                    _logger.Info(MessageKinds.Format1, i);
                }

                break;
        }
    }

    protected override void OnStop()
    {
        _factory.Flush(TimeSpan.FromSeconds(60));
        _factory.Shutdown();
    }
}

/// <summary>Serilog: <c>WriteTo.Async</c> (Serilog.Sinks.Async) around <c>WriteTo.File</c> (Serilog.Sinks.File).</summary>
internal sealed class SerilogSession : BenchSession
{
    // {Level:u4} is "INFO"; the second space makes it as wide as log4net's %-5level.
    private const string Template = "{Timestamp:yyyy-MM-dd HH:mm:ss,fff} [{ThreadId}] {Level:u4}  {SourceContext:l} - {Message:l}{NewLine}";

    private readonly Serilog.Core.Logger _root;
    private readonly Serilog.ILogger _logger;

    public SerilogSession(int bufferSize, MessageKind kind)
        : base(NewFolder(), kind)
    {
        // buffered + flushToDiskInterval: the setting a user picks for speed while still getting a quiet
        // application's lines onto the disk (the default flushes the stream after every event).
        _root = new LoggerConfiguration()
            .MinimumLevel.Information()
            .Enrich.With(ThreadIdEnricher.Instance)
            .WriteTo.Async(
                a => a.File(Path.Combine(Folder, "app.log"), outputTemplate: Template, formatProvider: System.Globalization.CultureInfo.InvariantCulture,
                    buffered: true, flushToDiskInterval: TimeSpan.FromSeconds(1)),
                bufferSize: bufferSize,
                blockWhenFull: true)
            .CreateLogger();
        _logger = _root.ForContext(Constants.SourceContextPropertyName, BenchMessage.Logger);
    }

    public override void Log(int i)
    {
        switch (Kind)
        {
            case MessageKind.Format1:
                _logger.Information(MessageKinds.Format1, i);
                break;
            case MessageKind.Format3:
                _logger.Information(MessageKinds.Format3, i, MessageKinds.Price, MessageKinds.Venue);
                break;
            case MessageKind.Interpolated:
                // Serilog parses a message as a template: a new string each call misses its template cache.
                _logger.Information(MessageKinds.Interpolate(i));
                break;
            case MessageKind.Constant:
                _logger.Information(BenchMessage.Text);
                break;
            default:
                if (MessageKinds.IsError(i))
                {
                    _logger.Error(MessageKinds.Failure, MessageKinds.ErrorText);
                }
                else
                {
                    _logger.Information(MessageKinds.Format1, i);
                }

                break;
        }
    }

    protected override void OnStop() => _root.Dispose();

    /// <summary>The thread id as a property, one cached property per thread (Serilog core has no thread enricher).</summary>
    private sealed class ThreadIdEnricher : ILogEventEnricher
    {
        public static readonly ThreadIdEnricher Instance = new ThreadIdEnricher();

        [ThreadStatic]
        private static LogEventProperty? _property;

        public void Enrich(LogEvent logEvent, ILogEventPropertyFactory propertyFactory) =>
            logEvent.AddPropertyIfAbsent(_property ??= new LogEventProperty("ThreadId", new ScalarValue(Environment.CurrentManagedThreadId)));
    }
}

/// <summary>ZLogger: its file provider on Microsoft.Extensions.Logging, with a plain-text prefix like log4net's.</summary>
internal sealed class ZLoggerSession : BenchSession
{
    private readonly ILoggerFactory _factory;
    private readonly Microsoft.Extensions.Logging.ILogger _logger;

    public ZLoggerSession(MessageKind kind)
        : base(NewFolder(), kind)
    {
        string path = Path.Combine(Folder, "app.log");
        _factory = LoggerFactory.Create(builder =>
        {
            builder.ClearProviders();
            builder.SetMinimumLevel(LogLevel.Information);
            builder.AddZLoggerFile(path, options =>
            {
                options.CaptureThreadInfo = true;
                options.UsePlainTextFormatter(formatter => formatter.SetPrefixFormatter(
                    $"{0:yyyy-MM-dd HH:mm:ss,fff} [{1}] {2,-5} {3} - ",
                    (in ZLogger.MessageTemplate template, in LogInfo info) =>
                        template.Format(info.Timestamp.Local, info.ThreadInfo.ThreadId, LevelName(info.LogLevel), info.Category.Name)));
            });
        });
        _logger = _factory.CreateLogger(BenchMessage.Logger);
    }

    // ZLogger's API is its interpolated-string handler: the format kinds are written the way its users write them,
    // and the built string goes in as one hole.
    public override void Log(int i)
    {
        switch (Kind)
        {
            case MessageKind.Format1:
                _logger.ZLogInformation($"Order {i} accepted: 100 shares of CONTOSO at 42.17, routed to venue XNAS");
                break;
            case MessageKind.Format3:
                _logger.ZLogInformation($"Order {i} accepted: 100 shares of CONTOSO at {MessageKinds.Price}, routed to venue {MessageKinds.Venue}");
                break;
            case MessageKind.Interpolated:
                string text = MessageKinds.Interpolate(i);
                _logger.ZLogInformation($"{text}");
                break;
            case MessageKind.Constant:
                // BenchMessage.Text.
                _logger.ZLogInformation($"Order 4711 accepted: 100 shares of CONTOSO at 42.17, routed to venue XNAS");
                break;
            default:
                if (MessageKinds.IsError(i))
                {
                    _logger.ZLogError(MessageKinds.Failure, $"Order rejected by venue XNAS");
                }
                else
                {
                    _logger.ZLogInformation($"Order {i} accepted: 100 shares of CONTOSO at 42.17, routed to venue XNAS");
                }

                break;
        }
    }

    protected override void OnStop() => _factory.Dispose();

    private static string LevelName(LogLevel level) => level switch
    {
        LogLevel.Trace => "TRACE",
        LogLevel.Debug => "DEBUG",
        LogLevel.Information => "INFO",
        LogLevel.Warning => "WARN",
        LogLevel.Error => "ERROR",
        _ => "FATAL",
    };
}
