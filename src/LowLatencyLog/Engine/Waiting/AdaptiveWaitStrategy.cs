using System.Diagnostics;
using System.Threading;

namespace LowLatencyLog.Engine.Waiting;

/// <summary>
/// The default. Spins briefly, then waits on a timer and looks again every <see cref="PollMilliseconds"/>; after
/// <see cref="ParkAfterMilliseconds"/> without events it parks like <see cref="BlockingWaitStrategy"/>.
/// </summary>
/// <remarks>
/// <para>While the application keeps logging, even a few events a second, the worker wakes on its own timer, so no
/// calling thread makes a system call to wake it: a producer reads one flag that stays down. Only the first event after
/// a second of silence finds the worker parked and pays one wake-up.</para>
/// <para>The interval trades the time an event waits before the worker takes it against the CPU the polls cost an
/// idle application: each timer wake-up costs the worker some microseconds (more on a virtual machine). Between polls
/// events build up into one batch, written and flushed once.</para>
/// <para>On Windows the poll is a timed wait on an event that <see cref="Wake"/> sets, so a flush, a close or a
/// producer that finds the buffer full cuts it short instead of waiting for the default timer's 15.6 ms tick (a
/// <see cref="Thread.Sleep(int)"/> of 4 ms lasts that long there). Elsewhere it is a plain sleep: a timed wait on an
/// event costs the worker about half as much CPU again per poll on Linux (docs/design.md, "The default wait"), and a
/// flush waits at most one 4 ms interval. Producers' <see cref="WaitStrategy.SignalWork"/> never sets the event: that would be a
/// system call per event.</para>
/// </remarks>
internal sealed class AdaptiveWaitStrategy : ParkingWaitStrategy
{
    /// <summary>Idle this long, the worker parks and the next event pays one wake-up.</summary>
    internal const int ParkAfterMilliseconds = 1000;

    /// <summary>The poll interval: the most an event waits for a worker that is polling.</summary>
    internal const int PollMilliseconds = 4;

    // Spin count 0: the strategy has just spun. Null where polls sleep.
    private readonly ManualResetEventSlim? _poke;
    private readonly int _pollMilliseconds;
    private readonly long _parkAfterTicks;

    /// <param name="claimIsFullFence">Whether the queue's claim is a full fence (the handshake then needs no fence of its own).</param>
    /// <param name="pollMilliseconds">The poll interval (<see cref="PollMilliseconds"/> in the appenders).</param>
    /// <param name="parkAfterMilliseconds">Idle this long, the worker parks (<see cref="ParkAfterMilliseconds"/>).</param>
    /// <param name="pollsCutShort">Whether a poll waits on an event that <see cref="Wake"/> sets (Windows) rather than
    /// sleeping.</param>
    public AdaptiveWaitStrategy(bool claimIsFullFence, int pollMilliseconds, int parkAfterMilliseconds, bool pollsCutShort)
        : base(claimIsFullFence)
    {
        _pollMilliseconds = pollMilliseconds;
        _parkAfterTicks = Stopwatch.Frequency * parkAfterMilliseconds / 1000;
        _poke = pollsCutShort ? new ManualResetEventSlim(false, 0) : null;
    }

    public override void Wake()
    {
        Parking.Wake();
        _poke?.Set();
    }

    public override void WaitForWork(IWorkSignal work)
    {
        if (SpinBriefly(work))
        {
            return;
        }

        long idleSince = Stopwatch.GetTimestamp();
        while (true)
        {
            if (_poke != null)
            {
                // Reset, then look: a Wake after the reset ends the wait below; one before it left work to see.
                _poke.Reset();
                Thread.MemoryBarrier();
            }

            if (work.HasWork)
            {
                return;
            }

            if (Stopwatch.GetTimestamp() - idleSince >= _parkAfterTicks)
            {
                Parking.Park(work);
                return;
            }

            if (_poke != null)
            {
                _poke.Wait(_pollMilliseconds);
            }
            else
            {
                Thread.Sleep(_pollMilliseconds);
            }
        }
    }
}
