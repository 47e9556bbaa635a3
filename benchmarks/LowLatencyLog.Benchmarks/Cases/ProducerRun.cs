using System;
using System.Linq;
using System.Threading;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>
/// Producer threads started ahead of time and held at a gate, so that a measurement covers logging only, not thread
/// creation: <see cref="Go"/> opens the gate and returns when every producer has logged its share.
/// </summary>
internal sealed class ProducerRun
{
    private readonly Thread[] _threads;
    private readonly long[] _allocated;
    private readonly int _perProducer;
    private readonly ManualResetEventSlim _gate = new ManualResetEventSlim(false);
    private Exception? _failure;

    public ProducerRun(BenchSession session, int producers, int totalEvents)
    {
        if (totalEvents % producers != 0)
        {
            throw new ArgumentException($"{totalEvents} events do not split evenly over {producers} producers.");
        }

        int perProducer = totalEvents / producers;
        _perProducer = perProducer;
        _threads = new Thread[producers];
        _allocated = new long[producers];
        for (int p = 0; p < producers; p++)
        {
            int index = p;
            // Unnamed, so every framework prints the managed thread id for %thread.
            _threads[p] = new Thread(() =>
            {
                _gate.Wait();
                try
                {
                    long before = GC.GetAllocatedBytesForCurrentThread();
                    for (int i = 0; i < perProducer; i++)
                    {
                        session.Log(i);
                    }

                    _allocated[index] = GC.GetAllocatedBytesForCurrentThread() - before;
                }
                catch (Exception e)
                {
                    Interlocked.CompareExchange(ref _failure, e, null);
                }
            }) { IsBackground = true };
            _threads[p].Start();
        }
    }

    /// <summary>Bytes each producer thread allocated per call, averaged over the producers (after <see cref="Go"/>).</summary>
    public double BytesPerCall => (double)_allocated.Sum() / _allocated.Length / _perProducer;

    public void Go()
    {
        _gate.Set();
        foreach (Thread thread in _threads)
        {
            thread.Join();
        }

        if (_failure != null)
        {
            throw new InvalidOperationException("A producer failed.", _failure);
        }
    }
}
