using System.IO;
using System.Linq;
using System.Text;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using log4net.Core;
using log4net.Layout;
using log4net.Repository;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.IO;
using LowLatencyLog.Layout;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// <c>%message%newline</c>, the shortest pattern of <see cref="LayoutCostBenchmarks"/>, against the least any renderer
/// of it can do into the same buffer: <c>HandWritten</c> is that pattern written by hand for exactly this case (the
/// message, the exception check a file appender makes for a layout that ignores exceptions, the newline), with no
/// generality at all. How far the fast layout can get ahead of <see cref="PatternLayout"/> here is bounded by it.
/// </summary>
[Config(typeof(Config))]
[MemoryDiagnoser]
public class ShortPatternBenchmarks
{
    public const int Events = 100_000;
    private const int Ring = 1024;

    private LoggingEvent[] _events = System.Array.Empty<LoggingEvent>();
    private string[] _rendered = System.Array.Empty<string>();
    private PatternLayout _layout = null!;
    private CompiledLayout _compiled = null!;
    private EventBufferWriter _writer = null!;

    [GlobalSetup]
    public void Setup()
    {
        ILoggerRepository repository = log4net.LogManager.CreateRepository("short-" + System.Guid.NewGuid().ToString("N"));
        _events = Enumerable.Range(0, Ring)
            .Select(i => new LoggingEvent(typeof(ShortPatternBenchmarks), repository, "App.Orders.Service", Level.Info,
                $"order {i * 7919} accepted for customer {i % 97} in region eu-west", null))
            .ToArray();
        _layout = new PatternLayout("%message%newline");
        _layout.ActivateOptions();
        _compiled = LayoutCompiler.TryCompile(_layout, out string reason) ?? throw new System.InvalidOperationException(reason);
        _rendered = _events.Select(e => _layout.Format(e)).ToArray();
        _writer = new EventBufferWriter(new UTF8Encoding(false), 64 * 1024) { Stream = Stream.Null };
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Events)]
    public void Render()
    {
        PatternLayout layout = _layout;
        EventBufferWriter writer = _writer;
        LoggingEvent[] events = _events;
        for (int i = 0; i < Events; i++)
        {
            layout.Format(writer, events[i & (Ring - 1)]);
            writer.EndEvent();
        }

        writer.WriteCompleteEvents();
    }

    [Benchmark(OperationsPerInvoke = Events)]
    public void FastLayout()
    {
        CompiledLayout compiled = _compiled;
        EventBufferWriter writer = _writer;
        LoggingEvent[] events = _events;
        for (int i = 0; i < Events; i++)
        {
            compiled.Render(writer, events[i & (Ring - 1)]);
            writer.EndEvent();
        }

        writer.WriteCompleteEvents();
    }

    [Benchmark(OperationsPerInvoke = Events)]
    public void HandWritten()
    {
        EventBufferWriter writer = _writer;
        LoggingEvent[] events = _events;
        string newline = System.Environment.NewLine;
        for (int i = 0; i < Events; i++)
        {
            LoggingEvent loggingEvent = events[i & (Ring - 1)];
            string? exception = loggingEvent.GetExceptionString();
            writer.Write(loggingEvent.MessageObject as string);
            writer.Write(newline);
            if (!string.IsNullOrEmpty(exception))
            {
                writer.WriteLine(exception);
            }

            writer.EndEvent();
        }

        writer.WriteCompleteEvents();
    }

    [Benchmark(OperationsPerInvoke = Events)]
    public void Floor()
    {
        EventBufferWriter writer = _writer;
        string[] rendered = _rendered;
        for (int i = 0; i < Events; i++)
        {
            writer.Write(rendered[i & (Ring - 1)]);
            writer.EndEvent();
        }

        writer.WriteCompleteEvents();
    }

    private sealed class Config : ManualConfig
    {
        public Config()
        {
            if (!Program.SmokeRun)
            {
                AddJob(Job.Default.WithPromptTiering().WithWarmupCount(3).WithIterationCount(15).WithLaunchCount(3).WithId("Short"));
            }
        }
    }
}
