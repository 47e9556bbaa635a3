using System;
using System.Threading;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Engine;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// End to end through the queue alone (no log4net, no formatting): producers send a fixed total of events and the run
/// ends when the consumer has received every one. Shows how each queue scales as producers are added on this machine.
/// Time is per event; the events/s column is its inverse. The payload is a 72-byte struct (<see cref="BenchEvent"/>).
/// </summary>
[Config(typeof(QueueThroughputConfig))]
[MemoryDiagnoser]
public class QueueThroughputBenchmarks : QueueThroughputBase
{
    /// <summary>The smoke run takes two of them only: it runs every case once.</summary>
    public static int[] ProducerCounts => Program.SmokeRun ? new[] { 1, 4 } : new[] { 1, 2, 4, 8, 16 };

    [ParamsSource(nameof(ProducerCounts))]
    public override int Producers { get; set; }

    [Params("BoundedQueue", "HotSwapQueue", "Ring/Blocking", "Ring/Sleeping", "Ring/Yielding", "Ring/BusySpin", "Channel", "BlockingCollection")]
    public string Queue { get; set; } = "";

    protected override string QueueName => Queue;
}

/// <summary>
/// One producer: the ring with <c>producerType=Single</c> (no interlocked claim) for each wait strategy, against the
/// multi-producer ring and the bounded queue in the same run.
/// </summary>
[Config(typeof(QueueThroughputConfig))]
[MemoryDiagnoser]
public class SingleProducerRingBenchmarks : QueueThroughputBase
{
    public override int Producers { get; set; } = 1;

    [Params("BoundedQueue", "Bounded/Yielding", "Bounded/BusySpin", "Ring/Yielding", "Ring/BusySpin",
        "RingSingle/Blocking", "RingSingle/Sleeping", "RingSingle/Yielding", "RingSingle/BusySpin")]
    public string Queue { get; set; } = "";

    protected override string QueueName => Queue;
}

/// <summary>The send-and-deliver loop both throughput benchmarks share.</summary>
public abstract class QueueThroughputBase
{
    public const int TotalEvents = 1 << 20;
    private const int Capacity = 65536;

    private IPipeline _pipeline = null!;
    private long _sent;

    public abstract int Producers { get; set; }

    protected abstract string QueueName { get; }

    [GlobalSetup]
    public void Setup()
    {
        _pipeline = Create(QueueName);
        _sent = 0;
    }

    [GlobalCleanup]
    public void Cleanup() => _pipeline.Dispose();

    [Benchmark(OperationsPerInvoke = TotalEvents)]
    public void SendAndDeliver()
    {
        int perProducer = TotalEvents / Producers;
        IPipeline pipeline = _pipeline;
        if (Producers == 1)
        {
            // On the benchmark's own thread, the same for every invocation: a Single ring's owner stays its owner.
            Send(pipeline, 0, perProducer);
        }
        else
        {
            var threads = new Thread[Producers];
            for (int p = 0; p < threads.Length; p++)
            {
                int producer = p;
                threads[p] = new Thread(() => Send(pipeline, producer, perProducer));
                threads[p].Start();
            }

            foreach (Thread thread in threads)
            {
                thread.Join();
            }
        }

        _sent += (long)perProducer * Producers;
        pipeline.WaitForDelivered(_sent);
    }

    private static void Send(IPipeline pipeline, int producer, int count)
    {
        var item = new BenchEvent((long)producer << 32);
        for (int i = 0; i < count; i++)
        {
            pipeline.Send(item);
        }
    }

    private static IPipeline Create(string queue)
    {
        int slash = queue.IndexOf('/');
        if (slash > 0)
        {
            // "Queue/WaitStrategy": one of the project's queues on the dispatcher with that wait strategy.
            var wait = (WaitStrategyKind)Enum.Parse(typeof(WaitStrategyKind), queue.Substring(slash + 1));
            IQueueFactory factory = queue.Substring(0, slash) switch
            {
                "Ring" => DisruptorQueueFactory.Multi,
                "RingSingle" => DisruptorQueueFactory.Single,
                "Bounded" => BoundedQueueFactory.Instance,
                _ => throw new ArgumentException(queue),
            };
            return new DispatcherPipeline(factory, Capacity, wait);
        }

        return queue switch
        {
            "BoundedQueue" => new DispatcherPipeline(BoundedQueueFactory.Instance, Capacity),
            "HotSwapQueue" => new DispatcherPipeline(HotSwapQueueFactory.Instance, Capacity),
            "BlockingCollection" => new BlockingCollectionPipeline(Capacity),
            "Channel" => new ChannelPipeline(Capacity),
            _ => throw new ArgumentException(queue),
        };
    }
}

internal sealed class QueueThroughputConfig : ManualConfig
{
    public QueueThroughputConfig()
    {
        if (!Program.SmokeRun)
        {
            AddJob(Job.Default.WithPromptTiering().WithWarmupCount(2).WithIterationCount(6).WithLaunchCount(1).WithId("Queue"));
        }

        AddColumn(new EventsPerSecondColumn());
        HideColumns(Column.Error);
        WithOrderer(new BenchmarkDotNet.Order.DefaultOrderer(BenchmarkDotNet.Order.SummaryOrderPolicy.Declared));
    }
}

/// <summary>Events per second, from the mean time per event.</summary>
public sealed class EventsPerSecondColumn : IColumn
{
    public string Id => nameof(EventsPerSecondColumn);

    public string ColumnName => "Events/s";

    public bool AlwaysShow => true;

    public ColumnCategory Category => ColumnCategory.Custom;

    public int PriorityInCategory => 0;

    public bool IsNumeric => true;

    public UnitType UnitType => UnitType.Dimensionless;

    public string Legend => "Events delivered per second (1 / mean time per event)";

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase)
    {
        var report = summary[benchmarkCase];
        double? nanoseconds = report?.ResultStatistics?.Mean;
        return nanoseconds is > 0 ? (1e9 / nanoseconds.Value).ToString("N0") : "-";
    }

    public string GetValue(Summary summary, BenchmarkCase benchmarkCase, SummaryStyle style) => GetValue(summary, benchmarkCase);

    public bool IsAvailable(Summary summary) => true;

    public bool IsDefault(Summary summary, BenchmarkCase benchmarkCase) => false;
}
