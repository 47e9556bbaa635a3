using System;
using System.Runtime.InteropServices;

namespace LowLatencyLog.Core;

/// <summary>
/// Keeps a woken worker off the core of the producer that woke it while that producer logs a burst (Linux).
/// </summary>
/// <remarks>
/// Linux places a woken thread on its waker's core when the other cores are busy at that instant, and may leave the
/// two there for tens of milliseconds while another core idles (measured on the project's 2-core VM: a producer's burst
/// of 65,536 events took 14–20 ms instead of 7–8 ms, one burst in two or three). A timed sleep does not get the worker
/// placed elsewhere (tried); so the worker that finds itself on its waker's processor with a burst waiting takes that
/// processor out of its affinity for one migration and then allows every processor it had again.
/// </remarks>
internal static class ProcessorPlacement
{
    /// <summary>Events waiting at the wake-up that show a burst rather than an occasional event.</summary>
    public const long BurstBacklog = 64;

    private static readonly bool Supported = Environment.ProcessorCount > 1 && RuntimeInformation.IsOSPlatform(OSPlatform.Linux);

    private static bool _failed;

    /// <summary>The calling thread's processor, or -1 where it is not looked at. Never throws (a producer calls it).</summary>
    public static int Current
    {
        get
        {
            if (!Supported || _failed)
            {
                return -1;
            }

            try
            {
                return CurrentProcessor();
            }
            catch (Exception)
            {
                _failed = true;
                return -1;
            }
        }
    }

    /// <summary>Whether a worker woken by a thread on <paramref name="wakerProcessor"/> shares its processor while a
    /// burst waits.</summary>
    public static bool ShouldMoveOff(int wakerProcessor, int currentProcessor, long backlog) =>
        wakerProcessor >= 0 && backlog >= BurstBacklog && wakerProcessor == currentProcessor;

    /// <summary>Worker thread, just woken. Moves to another allowed processor if it shares its waker's during a burst;
    /// any failure turns the whole mechanism off, silently (it is an optimization).</summary>
    public static void MoveOffIfShared(int wakerProcessor, long backlog)
    {
        if (!Supported || _failed)
        {
            return;
        }

        try
        {
            int here = CurrentProcessor();
            if (ShouldMoveOff(wakerProcessor, here, backlog) && !MoveOff(here))
            {
                _failed = true;
            }
        }
        catch (Exception)
        {
            _failed = true; // no libc, no such call: an optimization only, so it stops here
        }
    }

    /// <summary>Takes <paramref name="processor"/> out of the calling thread's affinity (which moves the thread), then
    /// gives the thread back every processor it had. False if the affinity could not be read or set.</summary>
    internal static bool MoveOff(int processor) => Leave(processor, out ulong[]? allowed) && (allowed == null || Allow(allowed));

    /// <summary>Takes <paramref name="processor"/> out of the calling thread's affinity; the thread runs elsewhere when
    /// this returns. <paramref name="allowed"/> is the affinity before, or null if nothing changed (the processor was
    /// not allowed, or it is the only one). False if the affinity could not be read or set.</summary>
    internal static bool Leave(int processor, out ulong[]? allowed)
    {
        allowed = null;
        var before = new ulong[16]; // 1,024 processors
        if (processor < 0 || processor >= before.Length * 64 || sched_getaffinity(0, (IntPtr)(before.Length * sizeof(ulong)), before) != 0)
        {
            return false;
        }

        ulong bit = 1UL << (processor % 64);
        var others = (ulong[])before.Clone();
        others[processor / 64] &= ~bit;
        if ((before[processor / 64] & bit) == 0 || Array.TrueForAll(others, word => word == 0))
        {
            return true;
        }

        if (!Allow(others))
        {
            return false;
        }

        allowed = before;
        return true;
    }

    /// <summary>Sets the calling thread's affinity to <paramref name="mask"/>.</summary>
    internal static bool Allow(ulong[] mask) => sched_setaffinity(0, (IntPtr)(mask.Length * sizeof(ulong)), mask) == 0;

    internal static int CurrentProcessor() => sched_getcpu();

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_getcpu();

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_getaffinity(int pid, IntPtr size, [Out] ulong[] mask);

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_setaffinity(int pid, IntPtr size, ulong[] mask);
}
