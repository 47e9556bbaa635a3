using System;
using System.Collections.Concurrent;
using System.Threading;
using System.Threading.Channels;
using log4net.Appender;
using log4net.Core;
using log4net.Util;

namespace LowLatencyLog.Benchmarks.Baselines;

/// <summary>
/// An async log4net appender written the simple way, for comparison only: producers put the event on a bounded BCL
/// queue and one thread hands it to the children. It captures what the benchmark layout needs (message, thread name,
/// exception) on the producer thread, blocks when full, and, like our appenders, makes the children write at the end
/// of each batch: log4net's <c>FileAppender.Flush</c> fails with <c>immediateFlush=false</c>, so the last event before
/// the queue runs dry is appended with the child's <c>ImmediateFlush</c> switched on.
/// </summary>
public abstract class BaselineAsyncAppender : IAppender, IAppenderAttachable, IOptionHandler
{
    private const FixFlags Capture = FixFlags.Message | FixFlags.ThreadName | FixFlags.Exception;

    private readonly AppenderAttachedImpl _children = new AppenderAttachedImpl();
    private IAppender[] _childArray = Array.Empty<IAppender>();
    private Thread? _worker;
    private int _closed;

    public string Name { get; set; } = "";

    /// <summary>Capacity in events.</summary>
    public int BufferSize { get; set; } = 65536;

    public AppenderCollection Appenders => _children.Appenders;

    public void ActivateOptions()
    {
        CreateQueue(BufferSize);
        _worker = new Thread(Run) { IsBackground = true, Name = "baseline " + Name };
        _worker.Start();
    }

    public void DoAppend(LoggingEvent loggingEvent)
    {
        if (Volatile.Read(ref _closed) != 0)
        {
            return;
        }

        loggingEvent.Fix = Capture;
        Enqueue(loggingEvent);
    }

    public void Close()
    {
        if (Interlocked.Exchange(ref _closed, 1) != 0)
        {
            return;
        }

        CompleteAdding();
        _worker?.Join();
        _children.RemoveAllAppenders(); // closes them
    }

    public void AddAppender(IAppender appender)
    {
        _children.AddAppender(appender);
        _childArray = _children.Appenders.ToArray();
    }

    public IAppender? GetAppender(string? name) => _children.GetAppender(name);

    public void RemoveAllAppenders()
    {
        _children.RemoveAllAppenders();
        _childArray = Array.Empty<IAppender>();
    }

    public IAppender? RemoveAppender(IAppender? appender)
    {
        IAppender? removed = _children.RemoveAppender(appender);
        _childArray = _children.Appenders.ToArray();
        return removed;
    }

    public IAppender? RemoveAppender(string? name)
    {
        IAppender? removed = name == null ? null : _children.RemoveAppender(name);
        _childArray = _children.Appenders.ToArray();
        return removed;
    }

    protected abstract void CreateQueue(int capacity);

    /// <summary>Adds an event, blocking while the queue is full.</summary>
    protected abstract void Enqueue(LoggingEvent loggingEvent);

    /// <summary>Waits for an event; false once adding is complete and the queue is empty.</summary>
    protected abstract bool Take(out LoggingEvent loggingEvent);

    /// <summary>An event if one is there now.</summary>
    protected abstract bool TryTakeNow(out LoggingEvent loggingEvent);

    protected abstract void CompleteAdding();

    private void Run()
    {
        while (Take(out LoggingEvent current))
        {
            // One event is held back: the one after which the queue is empty ends the batch.
            while (TryTakeNow(out LoggingEvent next))
            {
                Deliver(current, endOfBatch: false);
                current = next;
            }

            Deliver(current, endOfBatch: true);
        }
    }

    private void Deliver(LoggingEvent loggingEvent, bool endOfBatch)
    {
        foreach (IAppender child in _childArray)
        {
            try
            {
                if (endOfBatch && child is TextWriterAppender writer && !writer.ImmediateFlush)
                {
                    writer.ImmediateFlush = true;
                    child.DoAppend(loggingEvent);
                    writer.ImmediateFlush = false;
                }
                else
                {
                    child.DoAppend(loggingEvent);
                }
            }
            catch (Exception e)
            {
                // The worker must survive a faulty child; a benchmark then fails on its line count.
                LogLog.Error(GetType(), "Child appender failed.", e);
            }
        }
    }
}

/// <summary>Over a bounded <see cref="BlockingCollection{T}"/>, drained by one thread.</summary>
public sealed class BlockingCollectionAsyncAppender : BaselineAsyncAppender
{
    private BlockingCollection<LoggingEvent> _queue = null!;

    protected override void CreateQueue(int capacity) => _queue = new BlockingCollection<LoggingEvent>(new ConcurrentQueue<LoggingEvent>(), capacity);

    protected override void Enqueue(LoggingEvent loggingEvent)
    {
        try
        {
            _queue.Add(loggingEvent);
        }
        catch (InvalidOperationException)
        {
            // Closed meanwhile: dropped, as after Close.
        }
    }

    protected override bool Take(out LoggingEvent loggingEvent) => _queue.TryTake(out loggingEvent!, Timeout.Infinite);

    protected override bool TryTakeNow(out LoggingEvent loggingEvent) => _queue.TryTake(out loggingEvent!);

    protected override void CompleteAdding() => _queue.CompleteAdding();
}

/// <summary>Over a bounded <see cref="Channel{T}"/> (single reader, wait when full), drained by one thread.</summary>
public sealed class ChannelAsyncAppender : BaselineAsyncAppender
{
    private Channel<LoggingEvent> _channel = null!;

    protected override void CreateQueue(int capacity) => _channel = Channel.CreateBounded<LoggingEvent>(new BoundedChannelOptions(capacity)
    {
        SingleReader = true,
        FullMode = BoundedChannelFullMode.Wait,
    });

    protected override void Enqueue(LoggingEvent loggingEvent)
    {
        if (_channel.Writer.TryWrite(loggingEvent))
        {
            return;
        }

        try
        {
            // Full: a synchronous producer has nothing better to do than wait.
            _channel.Writer.WriteAsync(loggingEvent).AsTask().GetAwaiter().GetResult();
        }
        catch (ChannelClosedException)
        {
        }
    }

    protected override bool Take(out LoggingEvent loggingEvent)
    {
        ChannelReader<LoggingEvent> reader = _channel.Reader;
        while (!reader.TryRead(out loggingEvent!))
        {
            if (!reader.WaitToReadAsync().AsTask().GetAwaiter().GetResult())
            {
                return false;
            }
        }

        return true;
    }

    protected override bool TryTakeNow(out LoggingEvent loggingEvent) => _channel.Reader.TryRead(out loggingEvent!);

    protected override void CompleteAdding() => _channel.Writer.TryComplete();
}
