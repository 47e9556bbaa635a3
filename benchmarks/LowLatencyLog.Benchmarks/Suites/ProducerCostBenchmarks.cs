using System.Collections.Generic;
using System.Threading;
using BenchmarkDotNet.Attributes;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// What a log call of each <see cref="MessageKind"/> costs the calling thread through each async appender (child:
/// <see cref="NullAppender"/>), against log4net's own floor in the same run: the logger straight into a synchronous
/// <see cref="NullAppender"/>.
/// </summary>
/// <remarks>
/// Each invocation starts the producer threads, which log <see cref="EventsPerInvocation"/> events in total; the buffer
/// holds more than that and the iteration cleanup waits for the worker to drain, so producers never wait for room and
/// the time is the producer's own. The Allocated column is process-wide (the worker takes the captured slots for the
/// <see cref="NullAppender"/> child without building events, so it is log4net's own event; the producer's bytes alone are
/// checked by <c>ProducerAllocationTests</c>).
/// </remarks>
[Config(typeof(Config))]
[MemoryDiagnoser]
public class ProducerCostBenchmarks : DrainedSuite
{
    public const int EventsPerInvocation = 1 << 15;


    [Params(1, 4)]
    public int Producers { get; set; }

    /// <summary>
    /// The async appender's buffer: the default (65,536 slots, 4 MB) and a large one (1,048,576 slots, 64 MB). Both hold
    /// more than an invocation logs, so producers never wait. In the small one a producer comes back to slots the worker
    /// touched two invocations earlier; in the large one, to slots that have long left every cache.
    /// </summary>
    [Params(65536, 1048576)]
    public int BufferSize { get; set; }

    [ParamsSource(nameof(Kinds))]
    public MessageKind Kind { get; set; }

    /// <summary>Every kind, or those named in <c>LLL_BENCH_KINDS</c>; the smoke run takes the mix (see there).</summary>
    public static IEnumerable<MessageKind> Kinds => EndToEnd.ThroughputBenchmark.Kinds;

    [Params("log4net floor", nameof(BoundedQueueAsyncAppender), nameof(HotSwapAsyncAppender), nameof(DisruptorAsyncAppender))]
    public string Appender { get; set; } = "";

    /// <summary>The calls made from the project the call-site generator intercepts: into an async appender they skip
    /// log4net's event (SPEC 22); into the floor they are log4net's own calls either way.</summary>
    [Params(false, true)]
    public bool Intercepted { get; set; }

    [GlobalSetup]
    public void Setup()
    {
        string root = Appender == "log4net floor" ? "null" : "async";
        Configure($@"<log4net>
            <appender name=""async"" type=""LowLatencyLog.Appender.{(root == "async" ? Appender : nameof(BoundedQueueAsyncAppender))}, LowLatencyLog"">
              <bufferSize value=""{BufferSize}"" />
              <appender-ref ref=""null"" />
            </appender>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <root><level value=""ALL"" /><appender-ref ref=""{root}"" /></root>
          </log4net>", "bench", () =>
        {
            Info();
            Drain();
        });
    }

    [Benchmark(OperationsPerInvoke = EventsPerInvocation)]
    public void Info()
    {
        int perProducer = EventsPerInvocation / Producers;
        ILog log = Log;
        MessageKind kind = Kind;
        bool intercepted = Intercepted;
        var threads = new Thread[Producers];
        for (int p = 0; p < threads.Length; p++)
        {
            threads[p] = new Thread(() =>
            {
                for (int i = 0; i < perProducer; i++)
                {
                    MessageKinds.Log(log, kind, i, intercepted);
                }
            }) { Name = "producer-" + p };
            threads[p].Start();
        }

        foreach (Thread thread in threads)
        {
            thread.Join();
        }
    }

    private sealed class Config : DrainedInvocationConfig
    {
        public Config()
            : base("Producer", warmups: 3, iterations: 15, median: false)
        {
        }
    }
}
