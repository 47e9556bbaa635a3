using System;
using System.Runtime.InteropServices;
using System.Threading;

namespace LowLatencyLog.Core;

/// <summary>
/// Keeps a sleeping worker from being woken onto the processor of the producer that wakes it (Linux, a kernel built
/// for at most 64 processors; with more possible processors the affinity read fails and the mechanism stays off). One
/// per wait strategy: the worker publishes its thread and affinity before it sleeps, the waking producer takes its own
/// processor out of that affinity before it signals, and the worker allows everything again once it runs.
/// </summary>
/// <remarks>
/// Linux places a woken thread on its waker's processor when the other processors are busy at that instant, and may
/// leave the two there for tens of milliseconds while another processor idles (measured on the project's 2-core VM: a
/// producer's burst of 65,536 events took 14–20 ms instead of 7–8 ms, one burst in two or three). Moving the worker
/// once it runs came too late: a woken thread waits for the producer's time slice to end first (1–3 ms, measured). An
/// affinity set before the wake-up decides where the worker runs from its first instruction. Any failure of a system
/// call turns the mechanism off for this worker; the producer's side never throws.
/// </remarks>
internal sealed class ProcessorPlacement
{
    private static readonly bool Supported = Environment.ProcessorCount > 1 && RuntimeInformation.IsOSPlatform(OSPlatform.Linux);

    // Worker thread id (0 until the worker's first sleep, -1 once the mechanism is off).
    private int _workerThread;

    // The worker's own affinity, read by the worker before each sleep (single word: processors 0-63).
    private long _allowed;

    // 1 while the worker runs with a narrowed affinity that it has not given back yet.
    private int _narrowed;

    // Odd while a producer is narrowing the worker: the worker's own affinity read then is not its own to keep.
    private int _narrowing;

    // Wake-ups that narrowed the worker (tests).
    private int _narrowings;

    internal bool IsOff => Volatile.Read(ref _workerThread) < 0;

    internal int Narrowings => Volatile.Read(ref _narrowings);

    internal ulong Allowed => (ulong)Volatile.Read(ref _allowed);

    /// <summary>The calling thread's processor, or -1 where it is not looked at.</summary>
    public static int CurrentProcessor()
    {
        if (!Supported)
        {
            return -1;
        }

        try
        {
            return sched_getcpu();
        }
        catch (Exception)
        {
            return -1;
        }
    }

    /// <summary>Worker, before it sleeps: gives back a narrowed affinity and publishes the thread and its affinity.
    /// Must come before the worker announces that it sleeps (the producer reads both after it sees that).</summary>
    public void BeforeSleep()
    {
        int thread = Volatile.Read(ref _workerThread);
        if (!Supported || thread < 0)
        {
            return;
        }

        try
        {
            AfterWake();
            if (thread == 0)
            {
                thread = CurrentThreadId();
                if (thread <= 0)
                {
                    TurnOff();
                    return;
                }
            }

            // A producer that took the flag of an earlier sleep may narrow the worker late, while it is awake again:
            // a mask read during or after that is not the worker's own, so it is kept only if no narrowing overlapped.
            int before = Volatile.Read(ref _narrowing);
            if (sched_getaffinity(0, (IntPtr)sizeof(ulong), out ulong mask) != 0)
            {
                TurnOff(); // more than 64 possible processors
                return;
            }

            if ((before & 1) == 0 && Volatile.Read(ref _narrowing) == before && Volatile.Read(ref _narrowed) == 0)
            {
                Volatile.Write(ref _allowed, (long)mask);
            }

            Interlocked.CompareExchange(ref _workerThread, thread, 0); // never over a producer's turn-off
        }
        catch (Exception)
        {
            TurnOff();
        }
    }

    /// <summary>Producer that is about to wake the sleeping worker: keeps the worker off this processor. Costs one
    /// system call per wake-up (about 1 µs on the project's VM); a busy worker is never woken. Never throws.</summary>
    public void KeepOffWaker()
    {
        int thread = Volatile.Read(ref _workerThread);
        if (thread <= 0)
        {
            return;
        }

        try
        {
            int processor = sched_getcpu();
            ulong allowed = (ulong)Volatile.Read(ref _allowed);
            if (processor < 0 || processor >= 64)
            {
                return;
            }

            ulong others = allowed & ~(1UL << processor);
            if (others == 0 || others == allowed)
            {
                return; // the worker may only run here, or may not run here anyway
            }

            Interlocked.Increment(ref _narrowing);
            try
            {
                if (sched_setaffinity(thread, (IntPtr)sizeof(ulong), ref others) != 0)
                {
                    TurnOff();
                    return;
                }

                Volatile.Write(ref _narrowed, 1);
            }
            finally
            {
                Interlocked.Increment(ref _narrowing);
            }

            Interlocked.Increment(ref _narrowings);
        }
        catch (Exception)
        {
            TurnOff();
        }
    }

    /// <summary>Worker, once it runs again: allows every processor it had before the producer narrowed them.</summary>
    public void AfterWake()
    {
        if (Volatile.Read(ref _narrowed) == 0 || Interlocked.Exchange(ref _narrowed, 0) == 0)
        {
            return;
        }

        try
        {
            ulong allowed = (ulong)Volatile.Read(ref _allowed);
            if (sched_setaffinity(0, (IntPtr)sizeof(ulong), ref allowed) != 0)
            {
                TurnOff();
            }
        }
        catch (Exception)
        {
            TurnOff();
        }
    }

    private void TurnOff() => Volatile.Write(ref _workerThread, -1);

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_getcpu();

    /// <summary>The calling thread's kernel id: glibc 2.30 and musl 1.2.2 have <c>gettid</c>; older ones only the system
    /// call, whose number depends on the architecture.</summary>
    private static int CurrentThreadId()
    {
        try
        {
            return gettid();
        }
        catch (EntryPointNotFoundException)
        {
            long number = RuntimeInformation.ProcessArchitecture switch
            {
                Architecture.X64 => 186,
                Architecture.Arm64 => 178,
                Architecture.X86 => 224,
                Architecture.Arm => 224,
                _ => -1,
            };
            return number < 0 ? -1 : (int)syscall(number);
        }
    }

    [DllImport("libc", SetLastError = true)]
    private static extern int gettid();

    [DllImport("libc", SetLastError = true)]
    private static extern long syscall(long number);

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_getaffinity(int pid, IntPtr size, out ulong mask);

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_setaffinity(int pid, IntPtr size, ref ulong mask);
}
