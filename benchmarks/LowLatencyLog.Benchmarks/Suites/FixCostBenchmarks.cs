using System;
using System.Collections.Generic;
using System.IO;
using BenchmarkDotNet.Attributes;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// What the <c>fix</c> setting costs the logging thread: one producer calling <c>InfoFormat</c> with one argument (the
/// headline <see cref="MessageKind"/>, whose message is formatted when captured) or logging a constant string through a
/// <see cref="DisruptorAsyncAppender"/> with each <c>fix</c> value, into a child that renders the standard pattern
/// (a <see cref="NullAppender"/> with that layout, or a <see cref="RollingBufferedFileAppender"/>). The seed measured
/// None, 268 (<c>Message, ThreadName, Exception</c>) and All; Partial and Auto are added, and "log4net floor" is the
/// logger straight into a synchronous <see cref="NullAppender"/> without a layout, the fastest a log call can be.
/// </summary>
/// <remarks>
/// The time is the producer's: the buffer holds every event of an invocation and the iteration cleanup waits for the
/// worker to drain, so the producer never waits for room. <c>All</c> includes <c>LocationInfo</c> (a stack walk per
/// event) and <c>Identity</c>/<c>UserName</c>, which is why it is orders of magnitude slower.
/// </remarks>
[Config(typeof(Config))]
[MemoryDiagnoser]
public class FixCostBenchmarks : DrainedSuite
{
    public const int EventsPerInvocation = 1 << 14;
    public const string Floor = "log4net floor";

    private string? _folder;

    [Params(Floor, "None", "ThreadName, Exception", "268", "Partial", "All", "Auto")]
    public string Fix { get; set; } = "";

    [Params("Null", "RollingBufferedFile")]
    public string Child { get; set; } = "";

    [ParamsSource(nameof(Kinds))]
    public MessageKind Kind { get; set; }

    /// <summary>The headline kind and the constant it used to be; the smoke run takes the headline kind only.</summary>
    public static IEnumerable<MessageKind> Kinds => Program.SmokeRun ? new[] { MessageKind.Format1 } : new[] { MessageKind.Format1, MessageKind.Constant };

    [GlobalSetup]
    public void Setup()
    {
        _folder = Path.Combine(Path.GetTempPath(), "lll-fix-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(_folder);
        string file = Path.Combine(_folder, "fix.log");
        string child = Child == "Null"
            ? $@"<appender name=""child"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"">
                   <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{StandardPattern}"" /></layout>
                 </appender>"
            : $@"<appender name=""child"" type=""LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog"">
                   <file value=""{SecurityElement(file)}"" />
                   <appendToFile value=""false"" />
                   <rollingStyle value=""Size"" />
                   <maximumFileSize value=""1GB"" />
                   <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{StandardPattern}"" /></layout>
                 </appender>";
        string root = Fix == Floor ? "floor" : "async";
        Configure($@"<log4net>
            <appender name=""async"" type=""LowLatencyLog.Appender.DisruptorAsyncAppender, LowLatencyLog"">
              <bufferSize value=""32768"" />
              <fix value=""{(Fix == Floor ? "Auto" : Fix)}"" />
              <appender-ref ref=""child"" />
            </appender>
            {child}
            <appender name=""floor"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <root><level value=""ALL"" /><appender-ref ref=""{root}"" /></root>
          </log4net>", "bench.fix", () =>
        {
            Info();
            Drain();
        });
    }

    protected override void AfterShutdown()
    {
        if (_folder != null)
        {
            try
            {
                Directory.Delete(_folder, recursive: true);
            }
            catch (IOException)
            {
                // A leftover temp folder is not worth failing the run for.
            }
        }
    }

    [Benchmark(OperationsPerInvoke = EventsPerInvocation)]
    public void Info()
    {
        ILog log = Log;
        MessageKind kind = Kind;
        for (int i = 0; i < EventsPerInvocation; i++)
        {
            MessageKinds.Log(log, kind, i);
        }
    }

    private static string SecurityElement(string text) => System.Security.SecurityElement.Escape(text)!;

    private sealed class Config : DrainedInvocationConfig
    {
        public Config()
            : base("Fix", warmups: 2, iterations: 10, median: true)
        {
        }
    }
}
