using System.IO;
using System.Linq;
using System.Text;
using BenchmarkDotNet.Attributes;
using log4net.Core;
using log4net.Layout;
using log4net.Repository;
using LowLatencyLog.Capture;
using LowLatencyLog.Layout;
using LowLatencyLog.Text;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// One pattern rendered into <see cref="EventBufferWriter"/> over <see cref="Stream.Null"/>, per event: log4net's
/// <see cref="PatternLayout"/> (<c>Render</c>, the baseline), the file appenders' compiled fast layout from log4net
/// events (<c>FastLayout</c>), and each event's final text written with no layout at all (<c>Floor</c>). The suites
/// deriving from it choose the patterns and add rows.
/// </summary>
public abstract class PatternRenderingBenchmark
{
    public const int Events = 100_000;
    protected const int Ring = 1024;

    public abstract string Pattern { get; set; }

    protected LoggingEvent[] LoggingEvents { get; private set; } = System.Array.Empty<LoggingEvent>();

    private protected CapturedEvent[] Captured { get; private set; } = System.Array.Empty<CapturedEvent>();

    protected PatternLayout Layout { get; private set; } = null!;

    private protected CompiledLayout Compiled { get; private set; } = null!;

    private protected EventBufferWriter Writer { get; private set; } = null!;

    private string[] _rendered = System.Array.Empty<string>();

    [GlobalSetup]
    public void Setup()
    {
        ILoggerRepository repository = log4net.LogManager.CreateRepository("layout-" + System.Guid.NewGuid().ToString("N"));
        LoggingEvents = Enumerable.Range(0, Ring)
            .Select(i => new LoggingEvent(typeof(PatternRenderingBenchmark), repository, "App.Orders.Service", Level.Info,
                $"order {i * 7919} accepted for customer {i % 97} in region eu-west", null))
            .ToArray();
        foreach (LoggingEvent e in LoggingEvents)
        {
            e.Properties["aKey"] = "value";
        }

        Captured = LoggingEvents.Select(e => CapturedEvent.Capture(e, CapturedEvent.SlotFlags | FixFlags.Properties)).ToArray();
        Layout = new PatternLayout(Pattern);
        Layout.ActivateOptions();
        Compiled = LayoutCompiler.TryCompile(Layout, out string reason) ?? throw new System.InvalidOperationException(reason);
        _rendered = LoggingEvents.Select(e => Layout.Format(e)).ToArray();
        Writer = new EventBufferWriter(new UTF8Encoding(false), 64 * 1024) { Stream = Stream.Null };
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Events)]
    public void Render()
    {
        PatternLayout layout = Layout;
        EventBufferWriter writer = Writer;
        LoggingEvent[] events = LoggingEvents;
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
        CompiledLayout compiled = Compiled;
        EventBufferWriter writer = Writer;
        LoggingEvent[] events = LoggingEvents;
        for (int i = 0; i < Events; i++)
        {
            compiled.Render(writer, events[i & (Ring - 1)]);
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
        EventBufferWriter writer = Writer;
        string[] rendered = _rendered;
        for (int i = 0; i < Events; i++)
        {
            writer.Write(rendered[i & (Ring - 1)]);
            writer.EndEvent();
        }

        writer.WriteCompleteEvents();
    }
}
