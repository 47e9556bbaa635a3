using System;
using System.Threading;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>
/// Producer threads started ahead of time and held at a gate, so that a measurement covers logging only, not thread
/// creation: <see cref="Go"/> opens the gate and returns when every producer has logged its share.
/// </summary>
internal sealed class ProducerRun
{
    private readonly Thread[] _threads;
    private readonly ManualResetEventSlim _gate = new ManualResetEventSlim(false);
    private Exception? _failure;

    public ProducerRun(BenchSession session, int producers, int totalEvents)
    {
        if (totalEvents % producers != 0)
        {
            throw new ArgumentException($"{totalEvents} events do not split evenly over {producers} producers.");
        }

        int perProducer = totalEvents / producers;
        _threads = new Thread[producers];
        for (int p = 0; p < producers; p++)
        {
            // Unnamed, so every framework prints the managed thread id for %thread.
            _threads[p] = new Thread(() =>
            {
                _gate.Wait();
                try
                {
                    for (int i = 0; i < perProducer; i++)
                    {
                        session.Log();
                    }
                }
                catch (Exception e)
                {
                    Interlocked.CompareExchange(ref _failure, e, null);
                }
            }) { IsBackground = true };
            _threads[p].Start();
        }
    }

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
