using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Text;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// <c>%message%newline</c>, the shortest pattern of <see cref="LayoutCostBenchmarks"/>, against the least any renderer
/// of it can do into the same buffer: <c>HandWritten</c> is that pattern written by hand for exactly this case (the
/// message, the exception check a file appender makes for a layout that ignores exceptions, the newline), with no
/// generality at all. How far the fast layout can get ahead of <see cref="PatternLayout"/> here is bounded by it.
/// </summary>
[Config(typeof(Config))]
[MemoryDiagnoser]
public class ShortPatternBenchmarks : PatternRenderingBenchmark
{
    public override string Pattern { get; set; } = "%message%newline";

    [Benchmark(OperationsPerInvoke = Events)]
    public void HandWritten()
    {
        EventBufferWriter writer = Writer;
        LoggingEvent[] events = LoggingEvents;
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
