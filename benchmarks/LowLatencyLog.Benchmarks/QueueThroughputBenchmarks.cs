using System;
using System.Threading;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Columns;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using BenchmarkDotNet.Reports;
using BenchmarkDotNet.Running;
using LowLatencyLog.Core;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// End to end through the queue alone (no log4net, no formatting): producers send a fixed total of events and the run
/// ends when the consumer has received every one. Shows how each queue scales as producers are added on this machine.
/// Time is per event; the events/s column is its inverse.
/// </summary>
[Config(typeof(Config))]
[MemoryDiagnoser]
public class QueueThroughputBenchmarks
{
    public const int TotalEvents = 1 << 20;
    private const int Capacity = 65536;

    private static readonly object Payload = new object();
    private IPipeline _pipeline = null!;
    private long _sent;

    [Params(1, 2, 4, 8, 16)]
    public int Producers { get; set; }

    [Params("BoundedQueue", "HotSwapQueue", "BlockingCollection", "Channel")]
    public string Queue { get; set; } = "";

    [GlobalSetup]
    public void Setup()
    {
        _pipeline = Queue switch
        {
            "BoundedQueue" => new DispatcherPipeline(BoundedQueueFactory.Instance, Capacity),
            "HotSwapQueue" => new DispatcherPipeline(HotSwapQueueFactory.Instance, Capacity),
            "BlockingCollection" => new BlockingCollectionPipeline(Capacity),
            "Channel" => new ChannelPipeline(Capacity),
            _ => throw new ArgumentException(Queue),
        };
        _sent = 0;
    }

    [GlobalCleanup]
    public void Cleanup() => _pipeline.Dispose();

    [Benchmark(OperationsPerInvoke = TotalEvents)]
    public void SendAndDeliver()
    {
        int perProducer = TotalEvents / Producers;
        var threads = new Thread[Producers];
        IPipeline pipeline = _pipeline;
        for (int p = 0; p < threads.Length; p++)
        {
            threads[p] = new Thread(() =>
            {
                for (int i = 0; i < perProducer; i++)
                {
                    pipeline.Send(Payload);
                }
            });
            threads[p].Start();
        }

        foreach (Thread thread in threads)
        {
            thread.Join();
        }

        _sent += (long)perProducer * Producers;
        pipeline.WaitForDelivered(_sent);
    }

    private sealed class Config : ManualConfig
    {
        public Config()
        {
            if (!Program.SmokeRun)
            {
                AddJob(Job.Default.WithWarmupCount(2).WithIterationCount(6).WithLaunchCount(1).WithId("Queue"));
            }

            AddColumn(new EventsPerSecondColumn());
            HideColumns(Column.Error);
            WithOrderer(new BenchmarkDotNet.Order.DefaultOrderer(BenchmarkDotNet.Order.SummaryOrderPolicy.Declared));
        }
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
