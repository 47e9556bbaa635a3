using System.IO;
using System.Linq;
using System.Text;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using log4net.Core;
using log4net.Layout;
using log4net.Repository;
using LowLatencyLog.Capture;
using LowLatencyLog.IO;
using LowLatencyLog.Layout;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// What log4net's <see cref="PatternLayout"/> costs per event as converters are added (the patterns of LOG4J2-930, in
/// log4net's syntax), rendered into <see cref="EventBufferWriter"/> over <see cref="Stream.Null"/>: the part of a file
/// appender's cost that no writer can remove. <c>FastLayout</c> renders the same pattern through the file appenders'
/// compiled fast layout path into the same buffer (the bytes are the same), and <c>FastLayoutCaptured</c> renders the
/// events as an async appender captured them, and <c>Floor</c> writes the final text with no layout at all; the ratio
/// column compares each with <c>Render</c>. Time is
/// per event.
/// </summary>
[Config(typeof(Config))]
[MemoryDiagnoser]
public class LayoutCostBenchmarks
{
    public const int Events = 100_000;
    private const int Ring = 1024;

    private LoggingEvent[] _events = System.Array.Empty<LoggingEvent>();
    private CapturedEvent[] _captured = System.Array.Empty<CapturedEvent>();
    private string[] _rendered = System.Array.Empty<string>();
    private PatternLayout _layout = null!;
    private CompiledLayout _compiled = null!;
    private EventBufferWriter _writer = null!;

    [Params(
        "%message%newline",
        "%message %exception%newline",
        "%date %message %exception%newline",
        "%date [%thread] %message %exception%newline",
        "%date %level [%thread] %message %exception%newline",
        "%date %level %logger{1} [%thread] %message %exception%newline",
        "%date %level %logger{1} [%thread] %property{aKey} %message %exception%newline",
        "%date [%thread] %-5level %logger - %message%newline",
        "%date{HH:mm:ss.fff} %level %logger{1} [%thread] %message %exception%newline")]
    public string Pattern { get; set; } = "";

    [GlobalSetup]
    public void Setup()
    {
        ILoggerRepository repository = log4net.LogManager.CreateRepository("layout-" + System.Guid.NewGuid().ToString("N"));
        _events = Enumerable.Range(0, Ring)
            .Select(i => new LoggingEvent(typeof(LayoutCostBenchmarks), repository, "App.Orders.Service", Level.Info,
                $"order {i * 7919} accepted for customer {i % 97} in region eu-west", null))
            .ToArray();
        foreach (LoggingEvent e in _events)
        {
            e.Properties["aKey"] = "value";
        }

        _captured = _events.Select(e => CapturedEvent.Capture(e, CapturedEvent.SlotFlags | FixFlags.Properties)).ToArray();
        _layout = new PatternLayout(Pattern);
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

    /// <summary>
    /// The layout as a file appender calls it (<c>AppenderSkeleton.RenderLoggingEvent</c>): the exception text is looked
    /// up first when the layout ignores exceptions. What the fast path replaces, step for step.
    /// </summary>
    [Benchmark(OperationsPerInvoke = Events)]
    public void RenderAsAppender()
    {
        PatternLayout layout = _layout;
        EventBufferWriter writer = _writer;
        LoggingEvent[] events = _events;
        for (int i = 0; i < Events; i++)
        {
            LoggingEvent loggingEvent = events[i & (Ring - 1)];
            if (layout.IgnoresException)
            {
                string? exception = loggingEvent.GetExceptionString();
                layout.Format(writer, loggingEvent);
                if (!string.IsNullOrEmpty(exception))
                {
                    writer.WriteLine(exception);
                }
            }
            else
            {
                layout.Format(writer, loggingEvent);
            }

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

    /// <summary>
    /// The fast path as a file appender behind an async appender runs it: the events as the async appender captured
    /// them (message, thread, exception, properties), with no log4net event rebuilt.
    /// </summary>
    [Benchmark(OperationsPerInvoke = Events)]
    public void FastLayoutCaptured()
    {
        CompiledLayout compiled = _compiled;
        EventBufferWriter writer = _writer;
        CapturedEvent[] captured = _captured;
        for (int i = 0; i < Events; i++)
        {
            compiled.Render(writer, captured[i & (Ring - 1)]);
            writer.EndEvent();
        }

        writer.WriteCompleteEvents();
    }

    /// <summary>
    /// No layout at all: each event's final text, rendered beforehand, written into the same buffer. What any renderer
    /// pays on top of its own work (copying the chars, ending the event, encoding); no layout can be faster.
    /// </summary>
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
                AddJob(Job.Default.WithPromptTiering().WithWarmupCount(3).WithIterationCount(12).WithLaunchCount(1).WithId("Layout"));
            }
        }
    }
}
