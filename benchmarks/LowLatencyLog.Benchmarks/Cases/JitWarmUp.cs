using System;
using System.Diagnostics;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>
/// Runs a benchmark's workload for a second and a half before BenchmarkDotNet's own stages. The tiered JIT needs about
/// a second of calls to reach its final code; a few warm-up iterations of a few milliseconds each (what the jobs with
/// one invocation per iteration amount to) left the measured iterations on unoptimized code, at a third of the steady
/// rate or less.
/// </summary>
internal static class JitWarmUp
{
    public static readonly TimeSpan Duration = TimeSpan.FromSeconds(1.5);

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
