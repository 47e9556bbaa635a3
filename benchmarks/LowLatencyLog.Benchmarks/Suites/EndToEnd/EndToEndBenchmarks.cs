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

    /// <summary>Every runnable case, or those named in <c>LLL_BENCH_CASES</c> (comma-separated) to run a few side by side.</summary>
    public static IEnumerable<string> Cases
    {
        get
        {
            IEnumerable<string> all = CaseTable.Runnable(Suites.EndToEnd).Select(c => c.Name);
            string? only = System.Environment.GetEnvironmentVariable("LLL_BENCH_CASES");
            if (string.IsNullOrWhiteSpace(only))
            {
                return all;
            }

            var named = new HashSet<string>(only.Split(',').Select(n => n.Trim()));
            return all.Where(named.Contains);
        }
    }
}
