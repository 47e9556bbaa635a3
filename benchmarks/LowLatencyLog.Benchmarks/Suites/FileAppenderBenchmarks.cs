using System;
using System.IO;
using System.Linq;
using System.Text;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using log4net.Repository;
using LowLatencyLog.Appender;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// The file appenders alone, on one thread: each invocation appends 1,000,000 events (a ring of 1,024 prepared events,
/// through <c>DoAppend</c>, no logger) to a fresh file. log4net's <see cref="FileAppender"/> (immediateFlush false, the
/// baseline, and true), its <see cref="RollingFileAppender"/>, ours (single events, batches of 256 as an async appender
/// delivers them, and rolling; all through the fast layout path, and single events once more through the layout with
/// <c>fastLayout=false</c>), and the floor: the same bytes, encoded beforehand, written through a plain
/// <see cref="FileStream"/> with a 64 KB buffer. Opening and closing the file are outside the measurement.
/// </summary>
[Config(typeof(Config))]
[MemoryDiagnoser]
[MinColumn]
[MedianColumn]
public class FileAppenderBenchmarks
{
    public const int Events = 1_000_000;
    private const int Ring = 1024;
    private const string FullPattern = "%date [%thread] %-5level %logger - %message%newline";

    private LoggingEvent[] _events = Array.Empty<LoggingEvent>();
    private byte[][] _encoded = Array.Empty<byte[]>();
    private string _folder = "";
    private IAppender? _appender;
    private FileStream? _floor;

    /// <summary><c>Full</c>: the pattern; <c>Message</c>: <c>%message%newline</c>.</summary>
    [Params("Full", "Message")]
    public string Layout { get; set; } = "";

    [GlobalSetup]
    public void Setup()
    {
        _folder = Directory.CreateDirectory(Path.Combine(Path.GetTempPath(), "lll-bench-" + Guid.NewGuid().ToString("N"))).FullName;
        ILoggerRepository repository = log4net.LogManager.CreateRepository("bench-" + Guid.NewGuid().ToString("N"));
        _events = Enumerable.Range(0, Ring)
            .Select(i => new LoggingEvent(typeof(FileAppenderBenchmarks), repository, "App.Orders.Service", Level.Info,
                $"order {i * 7919} accepted for customer {i % 97} in region eu-west", null))
            .ToArray();
        PatternLayout layout = NewLayout();
        var utf8 = new UTF8Encoding(false);
        _encoded = _events.Select(e => utf8.GetBytes(layout.Format(e))).ToArray();
    }

    [GlobalCleanup]
    public void Cleanup() => Directory.Delete(_folder, recursive: true);

    [IterationSetup(Target = nameof(FileAppender_ImmediateFlush))]
    public void SetupImmediate() => Open(new FileAppender { ImmediateFlush = true });

    [IterationSetup(Target = nameof(FileAppender_Buffered))]
    public void SetupBuffered() => Open(new FileAppender { ImmediateFlush = false });

    [IterationSetup(Target = nameof(RollingFileAppender_Buffered))]
    public void SetupRolling() => Open(new RollingFileAppender { ImmediateFlush = false, MaximumFileSize = "1GB" });

    [IterationSetup(Targets = new[] { nameof(Ours_Single), nameof(Ours_Batch256) })]
    public void SetupOurs() => Open(new BufferedFileAppender());

    [IterationSetup(Target = nameof(Ours_Single_LayoutPath))]
    public void SetupOursLayoutPath() => Open(new BufferedFileAppender { FastLayout = "false" });

    [IterationSetup(Target = nameof(OursRolling_Single))]
    public void SetupOursRolling() => Open(new RollingBufferedFileAppender { MaximumFileSize = "1GB" });

    [IterationSetup(Target = nameof(LayoutOnly_NoFile))]
    public void SetupLayoutOnly() => Open(new RenderOnlyAppender());

    [IterationSetup(Target = nameof(Floor_FileStream))]
    public void SetupFloor() =>
        _floor = new FileStream(Path.Combine(_folder, "floor.log"), FileMode.Create, FileAccess.Write, FileShare.Read, 64 * 1024);

    [IterationCleanup]
    public void CloseFile()
    {
        (_appender as IAppender)?.Close();
        _appender = null;
        _floor?.Dispose();
        _floor = null;
        foreach (string file in Directory.GetFiles(_folder))
        {
            File.Delete(file);
        }
    }

    [Benchmark(OperationsPerInvoke = Events)]
    public void FileAppender_ImmediateFlush() => AppendSingles();

    [Benchmark(Baseline = true, OperationsPerInvoke = Events)]
    public void FileAppender_Buffered() => AppendSingles();

    [Benchmark(OperationsPerInvoke = Events)]
    public void RollingFileAppender_Buffered() => AppendSingles();

    [Benchmark(OperationsPerInvoke = Events)]
    public void Ours_Single() => AppendSingles();

    /// <summary>Ours with <c>fastLayout=false</c>: the same file, rendered through <see cref="PatternLayout"/>.</summary>
    [Benchmark(OperationsPerInvoke = Events)]
    public void Ours_Single_LayoutPath() => AppendSingles();

    [Benchmark(OperationsPerInvoke = Events)]
    public void Ours_Batch256()
    {
        var appender = (IBulkAppender)_appender!;
        var batch = new LoggingEvent[256];
        for (int i = 0; i < Events; i += batch.Length)
        {
            Array.Copy(_events, i & (Ring - 1), batch, 0, batch.Length);
            appender.DoAppend(batch);
        }
    }

    [Benchmark(OperationsPerInvoke = Events)]
    public void OursRolling_Single() => AppendSingles();

    /// <summary>What any log4net appender pays before a byte is written: DoAppend and the layout, into TextWriter.Null.</summary>
    [Benchmark(OperationsPerInvoke = Events)]
    public void LayoutOnly_NoFile() => AppendSingles();

    [Benchmark(OperationsPerInvoke = Events)]
    public void Floor_FileStream()
    {
        FileStream stream = _floor!;
        byte[][] encoded = _encoded;
        for (int i = 0; i < Events; i++)
        {
            byte[] bytes = encoded[i & (Ring - 1)];
            stream.Write(bytes, 0, bytes.Length);
        }

        stream.Flush();
    }

    private void AppendSingles()
    {
        IAppender appender = _appender!;
        LoggingEvent[] events = _events;
        for (int i = 0; i < Events; i++)
        {
            appender.DoAppend(events[i & (Ring - 1)]);
        }
    }

    private void Open(AppenderSkeleton appender)
    {
        string path = Path.Combine(_folder, "app.log");
        switch (appender)
        {
            case FileAppender file:
                file.File = path;
                file.AppendToFile = false;
                break;
            case BufferedFileAppender ours:
                ours.File = path;
                ours.AppendToFile = "false";
                break;
        }

        appender.Layout = NewLayout();
        appender.ActivateOptions();
        _appender = appender;
    }

    private PatternLayout NewLayout()
    {
        var layout = new PatternLayout(Layout == "Full" ? FullPattern : "%message%newline");
        layout.ActivateOptions();
        return layout;
    }

    /// <summary>Renders each event through the layout into <see cref="TextWriter.Null"/>.</summary>
    private sealed class RenderOnlyAppender : AppenderSkeleton
    {
        protected override bool RequiresLayout => true;

        protected override void Append(LoggingEvent loggingEvent) => RenderLoggingEvent(TextWriter.Null, loggingEvent);
    }

    private sealed class Config : ManualConfig
    {
        public Config()
        {
            if (!Program.SmokeRun)
            {
                AddJob(Job.Default.WithPromptTiering().WithWarmupCount(3).WithIterationCount(15).WithLaunchCount(1).WithId("File"));
            }
        }
    }
}
