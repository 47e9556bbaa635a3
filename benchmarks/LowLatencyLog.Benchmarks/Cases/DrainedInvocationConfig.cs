using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>
/// The job of the suites that time the logging thread alone: one invocation per iteration, so the iteration cleanup can
/// drain the async appender's worker between them; rows in the order declared.
/// </summary>
internal class DrainedInvocationConfig : ManualConfig
{
    protected DrainedInvocationConfig(string id, int warmups, int iterations, bool median)
    {
        Job = Job.Default.WithPromptTiering().WithWarmupCount(warmups).WithIterationCount(iterations).WithInvocationCount(1)
            .WithUnrollFactor(1).WithLaunchCount(1);
        if (!Program.SmokeRun)
        {
            AddJob(Job.WithId(id));
        }

        if (median)
        {
            AddColumn(StatisticColumn.Median);
        }

        HideColumns(Column.Error);
        WithOrderer(new BenchmarkDotNet.Order.DefaultOrderer(BenchmarkDotNet.Order.SummaryOrderPolicy.Declared));
    }

    /// <summary>The job, for a suite that adds a variant of it.</summary>
    protected Job Job { get; }
}
