using System;
using BenchmarkDotNet.Attributes;
using log4net;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>
/// A suite that times the logging thread alone: a repository configured from XML, warmed up, and an async appender
/// drained after every iteration so that the producer never waits for room.
/// </summary>
public abstract class DrainedSuite
{
    /// <summary>The standard pattern of the project's figures.</summary>
    protected const string StandardPattern = "%date [%thread] %-5level %logger - %message%newline";

    private ConfiguredRepository? _configured;

    /// <summary>The logger the benchmark calls.</summary>
    protected ILog Log { get; private set; } = null!;

    [IterationCleanup]
    public void Drain() => _configured?.Drain();

    [GlobalCleanup]
    public void Cleanup()
    {
        _configured?.Repository.Shutdown();
        AfterShutdown();
    }

    /// <summary>Configures the repository from <paramref name="xml"/>, then runs <paramref name="warmUp"/> until the
    /// JIT has optimized it.</summary>
    protected void Configure(string xml, string loggerName, Action warmUp)
    {
        _configured = new ConfiguredRepository(xml, loggerName);
        Log = _configured.Log;
        JitWarmUp.Run(warmUp);
    }

    /// <summary>What a suite removes once the repository is shut down (its files).</summary>
    protected virtual void AfterShutdown()
    {
    }
}
