using System.Collections.Generic;
using System.Linq;
using BenchmarkDotNet.Attributes;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks.EndToEnd;

/// <summary>
/// log4net end to end, through <c>ILog.Info</c>: log4net's own file appenders, two async appenders over BCL queues,
/// and ours in front of a NullAppender and of RollingBufferedFileAppender (each appears once its type exists).
/// </summary>
public class EndToEndBenchmarks : ThroughputBenchmark
{
    [ParamsSource(nameof(Cases))]
    public override string Case { get; set; } = "";

    public static IEnumerable<string> Cases => CaseTable.Runnable(Suites.EndToEnd).Select(c => c.Name);
}
