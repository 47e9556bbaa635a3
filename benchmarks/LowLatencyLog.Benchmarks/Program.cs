using System;
using System.Linq;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using BenchmarkDotNet.Toolchains.InProcess.NoEmit;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Benchmarks.Csv;
using LowLatencyLog.Benchmarks.Latency;
using LowLatencyLog.Benchmarks.Quick;
using LowLatencyLog.Benchmarks.Soak;

namespace LowLatencyLog.Benchmarks;

public static class Program
{
    /// <summary>
    /// <c>--smoke</c>: every benchmark once, in process, with a dry job; exits 1 if any benchmark failed or did not run
    /// (BenchmarkDotNet itself exits 0 either way). <c>--idle-cpu</c>: the CPU at steady low rates and the time to file
    /// (<see cref="IdleCpu"/>). <c>--quick</c>, <c>--overload</c>, <c>--cold</c> (and its <c>--cold-child</c>),
    /// <c>--latency</c>, <c>--stall</c>, <c>--gc-pause</c>, <c>--latency-smoke</c>, <c>--soak</c>, <c>--soak-smoke</c>: see <see cref="Usage"/>. Anything else goes to <see cref="BenchmarkSwitcher"/>.
    /// </summary>
    public static int Main(string[] args)
    {
        string command = args.Length >= 1 ? args[0] : "";
        switch (command)
        {
            case "--smoke" when args.Length == 1:
                return Smoke();
            case "--idle-cpu":
                return IdleCpu.Run(args);
            case "--handoff":
                return CacheLineHandOff.Run(args);
            case "--gc-pause":
                return GcPause.Run(args);
            case "--gc-pause-case":
                return GcPause.RunCase(args);
            case "--quick":
                return QuickComparison.Run(args);
            case "--overload":
                return QuickComparison.Overload(args);
            case "--cold":
                return ColdStart.Run(args);
            case "--cold-child":
                return ColdStart.Child(args);
            case "--latency":
                return LatencyHarness.Run(args);
            case "--stall":
                return LatencyHarness.Stall(args);
            case "--latency-smoke":
                return LatencyHarness.Smoke();
            case "--soak":
                return SoakCommand.Run(args);
            case "--soak-smoke":
                return SoakCommand.Smoke();
            case "--help" or "-h" or "-?":
                Console.WriteLine(Usage);
                Console.WriteLine("BenchmarkDotNet's own options follow.");
                Console.WriteLine();
                break;
        }

        CaseTable.ReportSkipped(Suites.EndToEnd | Suites.Alternatives);
        // The generated project builds in a few seconds on a quiet machine, but takes minutes on a busy 2-core one.
        IConfig config = ManualConfig.Create(DefaultConfig.Instance).WithBuildTimeout(TimeSpan.FromMinutes(15));
        BenchmarkSwitcher.FromAssembly(typeof(Program).Assembly).Run(args, config);
        return 0;
    }

    private const string Usage = """
        LowLatencyLog benchmarks (docs/benchmarking.md says what each measures).

        BenchmarkDotNet suites (--filter '*Name*', or no argument to pick from a menu):
          EndToEndBenchmarks         log4net end to end through ILog: its file appenders, BCL-queue async baselines, ours
          AlternativesBenchmarks     NLog, Serilog and ZLogger writing the same line, next to log4net's and ours
          ProducerCostBenchmarks     ns per ILog.Info through each async appender against log4net's floor
          FixCostBenchmarks          what each fix value costs the logging thread (None, 268, Partial, All, Auto...)
          LayoutCostBenchmarks       the LOG4J2-930 patterns through BufferedFileAppender
          ShortPatternBenchmarks     %message%newline against a renderer hand-written for it
          FileAppenderBenchmarks     our file appenders against log4net's FileAppender and RollingFileAppender
          EventBufferWriterBenchmarks  the file appenders' buffer alone
          QueueThroughputBenchmarks  the async engine's queues alone, no log4net
          SingleProducerRingBenchmarks  the Disruptor ring's single-producer claim against the multi-producer one

        Commands:
          Message kinds (the [kinds] arguments, comma-separated, or all): Format1 (InfoFormat, one int argument; the
          default), Format3 (InfoFormat: int, decimal, string), Interpolated (a string built per call), Constant (a
          constant string), Mixed (Format1 with Error(message, exception) one call in 1,000). "-" keeps an argument's
          default. LLL_BENCH_KINDS=Format1,Constant restricts the BenchmarkDotNet suites' kinds.

          --quick [repeats] [csv] [case,case...] [events] [kinds]
                                                              README table: main cases, 1 and 4 producers, a few minutes
                                                              (or the named cases of any suite; events per run,
                                                              default 65,536: more than the buffer = sustained rate);
                                                              with bytes per call and gen0/1/2 per kind
          --overload [repeats] [events] [csv]                 strings built per call, 1,048,576 events (16x the async
                                                              buffers): collections, async against the file appender alone
          --latency [seconds] [rates|auto] [producers] [csv] [kinds] [rounds] [between]
                                                              per-call latency percentiles, paced producers (default
                                                              10 auto 2, 3 rounds with the cases' order moving: medians
                                                              and their spread); rates e.g. 1000,10000,100000; between
                                                              calls: sleep (default), spin, work[:KB] (touch KB of the
                                                              thread's own memory, 256 by default) or b2b (bursts of
                                                              1,000 calls back to back)
          --stall [seconds] [rates] [producers] [csv] [kinds] [rounds]
                                                              the same per-call latency for the synchronous file appender
                                                              and each async one, without and with a child beside the
                                                              file that stalls 100 ms every second
          --cold [case,case...] [kinds] [csv]                 each case in a new process: first 500,000 calls and first
                                                              second against the warm rate
          --latency-smoke                                     a ~30 s latency and stall run that checks its own output (CI)
          --soak [seconds] [appender] [csv]                   seconds per mode (default 600) at full rate, Block then Discard;
                                                              checks counts, lines on disk and flat memory; writes a CSV
          --soak-smoke                                        a 30 s soak (15 s per mode) that checks the same (CI)
          --idle-cpu [seconds] [wait strategy] [appenders]    CPU at 10, 1,000 and 10,000 events/s and time to file at 10/s
          --handoff [seconds]                                 what moving a cache line between two cores costs here
          --gc-pause [rounds] [sizes]                         a gen-0 collection's pause with each async appender's
                                                              buffer full (default sizes 8192,65536) against the
                                                              synchronous file appender
          --smoke                                             every BenchmarkDotNet benchmark once, in process (CI)
        """;

    /// <summary>True while the smoke run is configuring benchmarks: their configs then add no job of their own.</summary>
    internal static bool SmokeRun { get; private set; }

    private static int Smoke()
    {
        SmokeRun = true;
        CaseTable.ReportSkipped(Suites.EndToEnd | Suites.Alternatives);
        IConfig config = ManualConfig.CreateMinimumViable()
            .AddJob(Job.Dry.WithToolchain(InProcessNoEmitToolchain.Instance).WithId("Smoke"))
            .WithOptions(ConfigOptions.DisableOptimizationsValidator);
        Summary[] summaries;
        try
        {
            summaries = BenchmarkRunner.Run(typeof(Program).Assembly, config);
        }
        catch (Exception e)
        {
            // In process, a benchmark that throws can take BenchmarkDotNet down with it.
            Console.WriteLine(e);
            Console.WriteLine("benchmark smoke: a benchmark failed and stopped the run");
            return 1;
        }

        int expected = summaries.Sum(s => s.BenchmarksCases.Length);
        int succeeded = summaries.Sum(s => s.Reports.Count(r => r.Success && r.ExecuteResults.Any(e => e.IsSuccess)));
        bool errors = summaries.Any(s => s.HasCriticalValidationErrors);
        Console.WriteLine($"benchmark smoke: {succeeded} of {expected} benchmarks ran" + (errors ? ", with validation errors" : ""));
        return succeeded == expected && expected > 0 && !errors ? 0 : 1;
    }
}
