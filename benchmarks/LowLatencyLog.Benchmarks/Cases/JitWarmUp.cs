using System;
using System.Diagnostics;
using BenchmarkDotNet.Jobs;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>
/// Runs a benchmark's workload for a second and a half before BenchmarkDotNet's own stages. The tiered JIT needs about
/// a second of calls to reach its final code; a few warm-up iterations of a few milliseconds each (what the jobs with
/// one invocation per iteration amount to) left the measured iterations on unoptimized code, at a third of the steady
/// rate or less.
/// </summary>
/// <remarks>
/// The runtime also waits until no new method has been compiled for 100 ms before it starts counting calls towards the
/// optimized tier, and a benchmark process that keeps configuring new pipelines keeps compiling new methods: measured,
/// the worker's rendering path stayed unoptimized for about four seconds (600 ns per event instead of 100). Every suite
/// therefore runs with that delay at 0 (<see cref="WithPromptTiering"/>, and the project's runtime option for the
/// commands that run in this process). It changes when code is optimized, not the code: the steady state is the same.
/// </remarks>
internal static class JitWarmUp
{
    public static readonly TimeSpan Duration = TimeSpan.FromSeconds(1.5);

    /// <summary>The job with the tiered JIT's call-counting delay at 0 (see the remarks).</summary>
    public static Job WithPromptTiering(this Job job) =>
        job.WithEnvironmentVariables(new EnvironmentVariable("DOTNET_TC_CallCountingDelayMs", "0"));

    public static void Run(Action round)
    {
        var elapsed = Stopwatch.StartNew();
        do
        {
            round();
        }
        while (!Program.SmokeRun && elapsed.Elapsed < Duration);
    }
}
