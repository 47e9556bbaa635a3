using System;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Jobs;
using log4net;
using log4net.Appender;
using log4net.Core;
using LowLatencyLog.Appender;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Benchmarks.CallSites;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// What caller location costs the logging thread: one producer calling <c>InfoFormat</c> with one argument. "log4net
/// floor" is the logger into a synchronous <see cref="NullAppender"/>; "log4net location" the same plus log4net's own
/// location capture (a synchronous appender that reads <see cref="LoggingEvent.LocationInformation"/>, as every
/// log4net layout with a location converter does). The async cases put a <see cref="DisruptorAsyncAppender"/> in front
/// of a child whose standard pattern has no location, <c>%method</c> (type and method only), or <c>%line</c> (file and
/// line too), or <c>%stacktrace</c> (log4net's own capture, stack frames included). The "intercepted" cases make the
/// same call from an assembly the package's call-site generator ran on: the capture gets the call site from the
/// generated code instead of walking the stack.
/// </summary>
/// <remarks>
/// The "caller found" job turns profile-guided optimization off, which otherwise inlines log4net's <c>LogImpl</c>
/// methods into this hot loop, so that neither log4net nor this library finds a caller and both write "?".
/// The extra cost of location is a case's time less its base: "log4net location" − "log4net floor" for log4net, and an
/// async case − "async, no location" for ours, an intercepted case − "intercepted, no location" for intercepted calls;
/// docs/benchmarks.md quotes their ratio from one run. The buffer holds
/// every event of an invocation and the cleanup drains it, so the producer never waits for room.
/// </remarks>
[Config(typeof(Config))]
[MemoryDiagnoser]
public class LocationCostBenchmarks : DrainedSuite
{
    public const int EventsPerInvocation = 1 << 13;


    [Params("log4net floor", "log4net location", "async, no location", "async %method", "async %line", "async %stacktrace",
        "intercepted, no location", "intercepted %method", "intercepted %line")]
    public string Case { get; set; } = "";

    [GlobalSetup]
    public void Setup()
    {
        string pattern = Case switch
        {
            "async %method" or "intercepted %method" => "%date [%thread] %-5level %logger.%method - %message%newline",
            "async %line" or "intercepted %line" => "%date [%thread] %-5level %logger:%line - %message%newline",
            "async %stacktrace" => "%date [%thread] %-5level %stacktrace{2} - %message%newline",
            _ => StandardPattern,
        };
        string root = Case switch
        {
            "log4net floor" => "floor",
            "log4net location" => "location",
            _ => "async",
        };
        Configure($@"<log4net>
            <appender name=""async"" type=""LowLatencyLog.Appender.DisruptorAsyncAppender, LowLatencyLog"">
              <bufferSize value=""16384"" />
              <appender-ref ref=""child"" />
            </appender>
            <appender name=""child"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"">
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{pattern}"" /></layout>
            </appender>
            <appender name=""floor"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <appender name=""location"" type=""{typeof(LocationReadingAppender).AssemblyQualifiedName}"" />
            <root><level value=""ALL"" /><appender-ref ref=""{root}"" /></root>
          </log4net>", "bench.location", () =>
        {
            Info();
            Drain();
        });
    }

    [Benchmark(OperationsPerInvoke = EventsPerInvocation)]
    public void Info()
    {
        ILog log = Log;
        if (Case.StartsWith("intercepted", StringComparison.Ordinal))
        {
            for (int i = 0; i < EventsPerInvocation; i++)
            {
                InterceptedCalls.InfoFormat1(log, i);
            }

            return;
        }

        for (int i = 0; i < EventsPerInvocation; i++)
        {
            MessageKinds.Log(log, MessageKind.Format1, i);
        }
    }

    /// <summary>What a synchronous log4net appender with a location converter does on the logging thread.</summary>
    public sealed class LocationReadingAppender : IAppender
    {
        public static volatile string? Last;

        public string Name { get; set; } = "";

        public void Close()
        {
        }

        public void DoAppend(LoggingEvent loggingEvent) => Last = loggingEvent.LocationInformation?.MethodName;
    }

    private sealed class Config : DrainedInvocationConfig
    {
        public Config()
            : base("Location", warmups: 2, iterations: 10, median: true)
        {
            if (!Program.SmokeRun)
            {
                // Profile-guided optimization inlines log4net's LogImpl methods into a hot caller, and then neither log4net
                // nor this library finds the caller ("?"): without it, the caller is found and written, as in code that
                // is not hot enough to be inlined that way.
                AddJob(Job.WithEnvironmentVariables(new EnvironmentVariable("DOTNET_TieredPGO", "0")).WithId("Location, caller found"));
            }
        }
    }
}
