using System;
using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Channels;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Engine;

namespace LowLatencyLog.Benchmarks;

/// <summary>One way of moving events from many producers to one consumer thread, end to end.</summary>
public interface IPipeline : IDisposable
{
    void Send(in BenchEvent item);

    /// <summary>Blocks until <paramref name="total"/> items have reached the consumer since the pipeline started.</summary>
    void WaitForDelivered(long total);
}

/// <summary>Counts what it receives and lets a thread wait for a total.</summary>
internal sealed class CountingSink : IBatchSink<BenchEvent>
{
    private readonly object _lock = new object();
    private long _count;
    private long _waitingFor = long.MaxValue;

    public void Add(long count)
    {
        long now = Interlocked.Add(ref _count, count);
        if (now >= Volatile.Read(ref _waitingFor))
        {
            lock (_lock)
            {
                Monitor.PulseAll(_lock);
            }
        }
    }

    public void WaitFor(long total)
    {
        Volatile.Write(ref _waitingFor, total);
        lock (_lock)
        {
            while (Interlocked.Read(ref _count) < total)
            {
                Monitor.Wait(_lock, 100);
            }
        }
    }

    public void Deliver(BenchEvent[] items, int count) => Add(count);

    public bool Flush(int timeoutMilliseconds) => true;

    public void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded)
    {
    }

    public void Close()
    {
    }

    public void ReportError(string message, Exception? exception) => throw new InvalidOperationException(message, exception);
}

/// <summary>The shared dispatcher over one of the project's queues.</summary>
internal sealed class DispatcherPipeline : IPipeline
{
    private readonly CountingSink _sink = new CountingSink();
    private readonly AsyncDispatcher<BenchEvent> _dispatcher;

    public DispatcherPipeline(IQueueFactory queue, int capacity, WaitStrategyKind wait = WaitStrategyKind.Blocking)
    {
        _dispatcher = new AsyncDispatcher<BenchEvent>("bench", queue, capacity, _sink, OverflowAction.Block, 1024, wait);
        _dispatcher.Start();
    }

    public void Send(in BenchEvent item) => _dispatcher.Enqueue(item, discardable: false);

    public void WaitForDelivered(long total) => _sink.WaitFor(total);

    public void Dispose() => _dispatcher.Close(10_000);
}

/// <summary>Baseline: a bounded <see cref="BlockingCollection{T}"/> and a consumer thread, as commonly written.</summary>
internal sealed class BlockingCollectionPipeline : IPipeline
{
    private readonly CountingSink _sink = new CountingSink();
    private readonly BlockingCollection<BenchEvent> _queue;
    private readonly Thread _consumer;

    public BlockingCollectionPipeline(int capacity)
    {
        _queue = new BlockingCollection<BenchEvent>(capacity);
        _consumer = new Thread(() =>
        {
            foreach (BenchEvent _ in _queue.GetConsumingEnumerable())
            {
                _sink.Add(1);
            }
        }) { IsBackground = true };
        _consumer.Start();
    }

    public void Send(in BenchEvent item) => _queue.Add(item);

    public void WaitForDelivered(long total) => _sink.WaitFor(total);

    public void Dispose()
    {
        _queue.CompleteAdding();
        _consumer.Join();
    }
}

/// <summary>Baseline: a bounded <see cref="Channel"/> (single reader, wait when full) and a consumer thread.</summary>
internal sealed class ChannelPipeline : IPipeline
{
    private readonly CountingSink _sink = new CountingSink();
    private readonly Channel<BenchEvent> _channel;
    private readonly Thread _consumer;

    public ChannelPipeline(int capacity)
    {
        _channel = Channel.CreateBounded<BenchEvent>(new BoundedChannelOptions(capacity)
        {
            SingleReader = true,
            FullMode = BoundedChannelFullMode.Wait,
        });
        _consumer = new Thread(() =>
        {
            ChannelReader<BenchEvent> reader = _channel.Reader;
            while (reader.WaitToReadAsync().AsTask().GetAwaiter().GetResult())
            {
                long count = 0;
                while (reader.TryRead(out _))
                {
                    count++;
                }

                _sink.Add(count);
            }
        }) { IsBackground = true };
        _consumer.Start();
    }

    public void Send(in BenchEvent item)
    {
        if (!_channel.Writer.TryWrite(item))
        {
            _channel.Writer.WriteAsync(item).AsTask().GetAwaiter().GetResult();
        }
    }

    public void WaitForDelivered(long total) => _sink.WaitFor(total);

    public void Dispose()
    {
        _channel.Writer.Complete();
        _consumer.Join();
    }
}
