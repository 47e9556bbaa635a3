using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Capture;
using LowLatencyLog.Layout;
using LowLatencyLog.Text;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// What log4net's <see cref="PatternLayout"/> costs per event as converters are added (the patterns of LOG4J2-930, in
/// log4net's syntax), against the file appenders' compiled fast layout path into the same buffer (the bytes are the
/// same), with the rows of <see cref="PatternRenderingBenchmark"/> plus <c>RenderAsAppender</c> and
/// <c>FastLayoutCaptured</c> (the events as an async appender captured them); the ratio column compares each with
/// <c>Render</c>. Time is per event.
/// </summary>
[Config(typeof(Config))]
[MemoryDiagnoser]
public class LayoutCostBenchmarks : PatternRenderingBenchmark
{
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
    public override string Pattern { get; set; } = "";

    /// <summary>
    /// The layout as a file appender calls it (<c>AppenderSkeleton.RenderLoggingEvent</c>): the exception text is looked
    /// up first when the layout ignores exceptions. What the fast path replaces, step for step.
    /// </summary>
    [Benchmark(OperationsPerInvoke = Events)]
    public void RenderAsAppender()
    {
        PatternLayout layout = Layout;
        EventBufferWriter writer = Writer;
        LoggingEvent[] events = LoggingEvents;
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

    /// <summary>
    /// The fast path as a file appender behind an async appender runs it: the events as the async appender captured
    /// them (message, thread, exception, properties), with no log4net event rebuilt.
    /// </summary>
    [Benchmark(OperationsPerInvoke = Events)]
    public void FastLayoutCaptured()
    {
        CompiledLayout compiled = Compiled;
        EventBufferWriter writer = Writer;
        CapturedEvent[] captured = Captured;
        for (int i = 0; i < Events; i++)
        {
            compiled.Render(writer, captured[i & (Ring - 1)]);
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
