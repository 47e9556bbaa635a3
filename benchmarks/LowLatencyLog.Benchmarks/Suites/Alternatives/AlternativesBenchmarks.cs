using System.Collections.Generic;
using System.Linq;
using BenchmarkDotNet.Attributes;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Benchmarks.EndToEnd;

namespace LowLatencyLog.Benchmarks.Alternatives;

/// <summary>
/// What a user could pick instead: NLog, Serilog and ZLogger writing the same line to a file, next to log4net's
/// RollingFileAppender and (once they exist) our async appenders in front of RollingBufferedFileAppender.
/// </summary>
public class AlternativesBenchmarks : ThroughputBenchmark
{
    [ParamsSource(nameof(Cases))]
    public override string Case { get; set; } = "";

    public static IEnumerable<string> Cases => CaseTable.Runnable(Suites.Alternatives).Select(c => c.Name);
}
