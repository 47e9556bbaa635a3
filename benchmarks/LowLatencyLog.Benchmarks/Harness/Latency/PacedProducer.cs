using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Threading;
using HdrHistogram;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks.Latency;

/// <summary>
/// One producer thread logging at a fixed rate on a schedule fixed in advance, with histograms of its own.
/// </summary>
/// <remarks>
/// Each call is timed from the moment it was <em>due</em> (response time), not from when it actually started (service
/// time, recorded separately). When a call stalls, the calls due meanwhile start late and their wait counts, as it
/// would for an application that has work arriving at that rate: measuring from the actual start would hide the stall
/// behind a single slow sample (coordinated omission; log4j2's response-time test measures the same way).
/// Between calls the thread does what <see cref="Between"/> says: sleeps when the next call is more than 2 ms away and
/// yields otherwise (leaving the cores to the appender's worker; the lateness of the wake-up is measured, the same for
/// every case), spins until the call is due, or first touches a private array once, a line at a time, as an
/// application working on its own data between two log calls does (it evicts the logging code's lines from the
/// core's caches), then spins. A back-to-back producer makes its calls in bursts with nothing between them.
/// </remarks>
internal sealed class PacedProducer
{
    /// <summary>Anything slower than ten minutes is clamped; the histogram keeps three significant digits.</summary>
    private const long HighestNanoseconds = 600L * 1_000_000_000;

    /// <summary>Calls per burst of a back-to-back producer: each burst starts on the schedule, its calls follow each other at once.</summary>
    public const int BurstCalls = 1000;

    private static readonly double NanosecondsPerTick = 1e9 / Stopwatch.Frequency;

    private readonly BenchSession _session;
    private readonly long _firstDue;
    private readonly long _periodTicks;
    private readonly long _measureFrom;
    private readonly long _end;
    private readonly Thread _thread;
    private readonly int[] _collections = new int[3];
    private long _sent;
    private long _lagTicks;
    private Exception? _failure;
    private long _measuredCalls;
    private long _measuredBytes;
    private readonly SlowCallProbe? _probe = SlowCallProbe.Enabled ? new SlowCallProbe() : null;
    private readonly Between _between;
    private readonly byte[] _ownData;

    /// <param name="session">Where to log.</param>
    /// <param name="firstDue">Stopwatch timestamp of this producer's first call.</param>
    /// <param name="periodTicks">Stopwatch ticks between two of this producer's calls.</param>
    /// <param name="measureFrom">Calls due before this timestamp are the warm-up: made, not recorded.</param>
    /// <param name="end">No call is due at or after this timestamp.</param>
    /// <param name="between">What the thread does between calls.</param>
    public PacedProducer(BenchSession session, long firstDue, long periodTicks, long measureFrom, long end, Between between)
    {
        _between = between;
        _ownData = new byte[between.WorkBytes];
        _session = session;
        _firstDue = firstDue;
        _periodTicks = periodTicks;
        _measureFrom = measureFrom;
        _end = end;
        _thread = new Thread(Run) { IsBackground = true };
    }

    /// <summary>Due time to end of call.</summary>
    public LongHistogram Response { get; } = new LongHistogram(HighestNanoseconds, 3);

    /// <summary>Actual start to end of call.</summary>
    public LongHistogram Service { get; } = new LongHistogram(HighestNanoseconds, 3);

    public long Sent => Volatile.Read(ref _sent);

    /// <summary>How far behind its schedule the producer was at its latest call (ticks).</summary>
    public long LagTicks => Volatile.Read(ref _lagTicks);

    public Exception? Failure => _failure;

    /// <summary>What happened during each call over a millisecond, with <c>LLL_SLOW_CALLS=1</c> (after <see cref="Join"/>).</summary>
    public IReadOnlyList<string> SlowCalls => (IReadOnlyList<string>?)_probe?.SlowCalls ?? Array.Empty<string>();

    /// <summary>Bytes this thread allocated per measured call (after <see cref="Join"/>).</summary>
    public double BytesPerCall => _measuredCalls == 0 ? 0 : (double)_measuredBytes / _measuredCalls;

    /// <summary>Collections of generation 0, 1 and 2 in the process while this producer measured (after <see cref="Join"/>).</summary>
    public int[] Collections => _collections;

    public void Start() => _thread.Start();

    public void Join() => _thread.Join();

    private void Run()
    {
        try
        {
            long sleepAbove = Stopwatch.Frequency / 500; // 2 ms
            long yieldAbove = Stopwatch.Frequency / 20_000; // 50 µs: closer than that, a yield may lose the core for too long
            long sent = 0;
            long measured = 0;
            long bytesFrom = 0;
            for (long due = _firstDue; due < _end; due += _periodTicks)
            {
                if (measured == 0 && due >= _measureFrom)
                {
                    bytesFrom = GC.GetAllocatedBytesForCurrentThread();
                    for (int g = 0; g < 3; g++)
                    {
                        _collections[g] = -GC.CollectionCount(g);
                    }
                }

                long now = Stopwatch.GetTimestamp();
                bool inBurst = _between.Mode == BetweenMode.BackToBack && sent % BurstCalls != 0;
                long recordedDue = inBurst ? now : due;
                while (now < due && !inBurst)
                {
                    if (_between.Mode is BetweenMode.Sleep or BetweenMode.BackToBack && due - now > sleepAbove)
                    {
                        Thread.Sleep(1);
                    }
                    else if (_between.Mode is BetweenMode.Sleep or BetweenMode.BackToBack && due - now > yieldAbove)
                    {
                        Thread.Yield();
                    }

                    now = Stopwatch.GetTimestamp();
                }

                _probe?.Before();
                _session.Log((int)sent);
                long done = Stopwatch.GetTimestamp();
                _probe?.After(sent, now, done);
                if (due >= _measureFrom)
                {
                    Response.RecordValue(ToNanoseconds(done - recordedDue));
                    Service.RecordValue(ToNanoseconds(done - now));
                    measured++;
                }

                sent++;
                if (_ownData.Length > 0)
                {
                    TouchOwnData();
                }

                if ((sent & 255) == 0)
                {
                    Volatile.Write(ref _sent, sent);
                    Volatile.Write(ref _lagTicks, now - due);
                }
            }

            Volatile.Write(ref _sent, sent);
            if (measured > 0)
            {
                _measuredBytes = GC.GetAllocatedBytesForCurrentThread() - bytesFrom;
                _measuredCalls = measured;
                for (int g = 0; g < 3; g++)
                {
                    _collections[g] += GC.CollectionCount(g);
                }
            }
        }
        catch (Exception e)
        {
            _failure = e;
        }
    }

    /// <summary>One write per cache line of the thread's own array, as work on the application's own data.</summary>
    private void TouchOwnData()
    {
        byte[] data = _ownData;
        for (int i = 0; i < data.Length; i += 64)
        {
            data[i]++;
        }
    }

    private static long ToNanoseconds(long ticks) => Math.Clamp((long)(ticks * NanosecondsPerTick), 1, HighestNanoseconds);
}

internal enum BetweenMode
{
    Sleep,
    Spin,
    Work,
    BackToBack,
}

/// <summary>What a paced producer does between two calls: <c>sleep</c>, <c>spin</c>, <c>work[:KB]</c> (touch KB of its own memory, 256 by default, then spin) or <c>b2b</c> (see <see cref="LatencyHarness"/>).</summary>
internal readonly record struct Between(BetweenMode Mode, int WorkBytes)
{
    public static Between Parse(string text)
    {
        string[] parts = text.Split(':');
        return parts[0] switch
        {
            "sleep" => new Between(BetweenMode.Sleep, 0),
            "spin" => new Between(BetweenMode.Spin, 0),
            "work" => new Between(BetweenMode.Work, 1024 * (parts.Length > 1 ? int.Parse(parts[1], System.Globalization.CultureInfo.InvariantCulture) : 256)),
            "b2b" => new Between(BetweenMode.BackToBack, 0),
            _ => throw new ArgumentException($"between calls: sleep, spin, work[:KB] or b2b, not '{text}'"),
        };
    }

    public override string ToString() => Mode switch
    {
        BetweenMode.Work => $"work:{WorkBytes / 1024}",
        BetweenMode.BackToBack => "b2b",
        _ => Mode.ToString().ToLowerInvariant(),
    };
}
