using System;
using System.Threading;

namespace LowLatencyLog.Engine;

/// <summary>
/// The worker's pause after a small batch (worker thread only). A worker that takes events about as fast as they are
/// published reads each slot and the queue's cursor just after a producer wrote them, and the producer's next event
/// then waits for those cache lines to come back. A pause that touches nothing shared lets a batch build up, so the
/// lines change hands once per batch instead of once per event.
/// </summary>
/// <remarks>
/// The pause starts at about 2 µs and doubles, up to about 64 µs, each time the drain after a pause still finds a small
/// batch (a producer publishing steadily faster than the worker takes events); it goes back to the start as soon as a
/// pause ends with nothing to take (the producers are slower than the pause, so waiting longer gains nothing). A worker
/// at low or moderate rates therefore never pauses longer than 2 µs, and an idle one not at all: the pause follows a batch.
/// </remarks>
internal struct BatchPause
{
    /// <summary><see cref="Thread.SpinWait"/> iterations of the first pause: about 2 µs (the runtime normalizes an
    /// iteration to a few tens of nanoseconds).</summary>
    public const int ShortestIterations = 50;

    /// <summary>The longest pause: about 64 µs, a few hundred events at full speed.</summary>
    public const int LongestIterations = ShortestIterations << 5;

    /// <summary>The batch size the pause aims for, when the queue is large enough.</summary>
    public const int TargetBatch = 64;

    private readonly int _smallBatch;
    private int _iterations;
    private bool _afterPause;

    /// <param name="capacity">The queue's capacity: the target is at most a quarter of it, so the pause never grows
    /// while producers wait for room; a queue of fewer than 8 events never pauses.</param>
    public BatchPause(int capacity)
    {
        _smallBatch = capacity >= 8 ? Math.Min(TargetBatch, capacity / 4) : 0;
        _iterations = ShortestIterations;
        _afterPause = false;
    }

    /// <summary>The length of the next pause, in <see cref="Thread.SpinWait"/> iterations.</summary>
    public readonly int Iterations => _iterations;

    /// <summary>Called with every drain's count; true when the worker should pause now.</summary>
    public bool AfterDrain(int count)
    {
        if (_afterPause)
        {
            _afterPause = false;
            if (count == 0)
            {
                _iterations = ShortestIterations;
            }
            else if (count < _smallBatch && _iterations < LongestIterations)
            {
                _iterations <<= 1;
            }
        }

        return count > 0 && count < _smallBatch;
    }

    /// <summary>Pauses; the next drain's count decides how long the pause after it is.</summary>
    public void Pause()
    {
        Thread.SpinWait(_iterations);
        _afterPause = true;
    }
}
