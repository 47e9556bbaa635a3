using System;
using System.Linq;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.NoEmit;

namespace LowLatencyLog.Benchmarks;

public static class Program
{
    /// <summary>
    /// <c>--smoke</c>: every benchmark once, in process, with a dry job; exits 1 if any benchmark failed or did not run
    /// (BenchmarkDotNet itself exits 0 either way). <c>--idle-cpu</c>: the worker's CPU at steady low rates
    /// (<see cref="IdleCpu"/>). Anything else goes to <see cref="BenchmarkSwitcher"/>.
    /// </summary>
    public static int Main(string[] args)
    {
        if (args.Length == 1 && args[0] == "--smoke")
        {
            return Smoke();
        }

        if (args.Length >= 1 && args[0] == "--idle-cpu")
        {
            return IdleCpu.Run(args);
        }

        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args);
        return 0;
    }

    /// <summary>True while the smoke run is configuring benchmarks: their configs then add no job of their own.</summary>
    internal static bool SmokeRun { get; private set; }

    private static int Smoke()
    {
        SmokeRun = true;
        IConfig config = ManualConfig.CreateMinimumViable()
            .AddJob(Job.Dry.WithToolchain(InProcessNoEmitToolchain.Instance).WithId("Smoke"))
            .WithOptions(ConfigOptions.DisableOptimizationsValidator);
        Summary[] summaries = BenchmarkRunner.Run(typeof(Program).Assembly, config);
        int expected = summaries.Sum(s => s.BenchmarksCases.Length);
        int succeeded = summaries.Sum(s => s.Reports.Count(r => r.Success && r.ExecuteResults.Any(e => e.IsSuccess)));
        bool errors = summaries.Any(s => s.HasCriticalValidationErrors);
        Console.WriteLine($"benchmark smoke: {succeeded} of {expected} benchmarks ran" + (errors ? ", with validation errors" : ""));
        return succeeded == expected && expected > 0 && !errors ? 0 : 1;
    }
}
