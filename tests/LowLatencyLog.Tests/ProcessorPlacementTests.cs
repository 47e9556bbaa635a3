using System;
using System.Runtime.InteropServices;
using System.Threading;
using LowLatencyLog.Core;
using NUnit.Framework;

namespace LowLatencyLog.Tests;

/// <summary>
/// The producer that wakes the worker keeps it off its own processor, and the worker gets every processor it had back
/// once it runs.
/// </summary>
[NonParallelizable] // pins threads to processors
public sealed class ProcessorPlacementTests
{
    private const int Rounds = 20;

    [Test]
    public void KeepOffWaker_TakesTheWakersProcessorOutOfTheSleepingWorker_AndAfterWakeGivesItBack()
    {
        AssumeTwoProcessors();
        var placement = new ProcessorPlacement();
        int workerThread = 0;
        ulong before = 0, restored = 0;
        using var slept = new ManualResetEventSlim(false);
        using var wake = new ManualResetEventSlim(false);
        using var woken = new ManualResetEventSlim(false);
        var worker = new Thread(() =>
        {
            workerThread = gettid();
            before = Affinity(0);
            placement.BeforeSleep();
            slept.Set();
            wake.Wait();
            placement.AfterWake();
            restored = Affinity(0);
            woken.Set();
        });
        worker.Start();
        slept.Wait();

        int waker = -1;
        ulong narrowed = 0;
        var producer = new Thread(() =>
        {
            waker = ProcessorPlacement.CurrentProcessor();
            placement.KeepOffWaker();
            narrowed = Affinity(workerThread);
        });
        producer.Start();
        producer.Join();
        wake.Set();
        woken.Wait();
        worker.Join();

        Assert.That(placement.IsOff, Is.False, "the system calls work here");
        Assert.That(waker, Is.InRange(0, 63));
        Assert.That(narrowed, Is.EqualTo(before & ~(1UL << waker)), "the sleeping worker may run anywhere but on the waker's processor");
        Assert.That(restored, Is.EqualTo(before), "every processor the worker had is allowed again once it runs");
    }

    [Test]
    public void EveryWakeUp_NarrowsTheSleepingWorker_AndTheWorkerEndsWithItsWholeAffinity()
    {
        AssumeTwoProcessors();
        var strategy = new BlockingWaitStrategy(claimIsFullFence: false);
        var work = new Flag();
        var ranOn = new int[Rounds];
        var wakers = new int[Rounds];
        ulong before = 0, after = 0;
        using var taken = new SemaphoreSlim(0);
        var worker = new Thread(() =>
        {
            before = Affinity(0);
            for (int i = 0; i < Rounds; i++)
            {
                strategy.WaitForWork(work);
                ranOn[i] = ProcessorPlacement.CurrentProcessor();
                Volatile.Write(ref work.Value, false);
                taken.Release();
            }

            after = Affinity(0);
        });
        worker.Start();

        int pinned = System.Numerics.BitOperations.TrailingZeroCount(Affinity(0));
        var producer = new Thread(() =>
        {
            ulong only = 1UL << pinned;
            sched_setaffinity(0, (IntPtr)sizeof(ulong), ref only);
            for (int i = 0; i < Rounds; i++)
            {
                SpinWait.SpinUntil(() => strategy.IsWorkerWaiting);
                wakers[i] = ProcessorPlacement.CurrentProcessor();
                Volatile.Write(ref work.Value, true);
                strategy.SignalWork();
                taken.Wait();
            }
        });
        producer.Start();
        producer.Join();
        worker.Join();

        Assert.That(wakers, Is.All.EqualTo(pinned), "the producer stayed where it was pinned");
        Assert.That(strategy.Placement.Narrowings, Is.EqualTo(Rounds), "each wake-up kept the worker off the producer's processor");
        Assert.That(ranOn, Has.None.EqualTo(pinned), "so the worker ran elsewhere each time");
        Assert.That(after, Is.EqualTo(before), "nothing stays narrowed");
    }

    [Test]
    public void AWorkerWithOneProcessor_IsLeftAlone()
    {
        AssumeTwoProcessors();
        var placement = new ProcessorPlacement();
        int workerThread = 0;
        ulong only = 0, during = 0;
        using var slept = new ManualResetEventSlim(false);
        using var wake = new ManualResetEventSlim(false);
        var worker = new Thread(() =>
        {
            workerThread = gettid();
            only = 1UL << ProcessorPlacement.CurrentProcessor();
            sched_setaffinity(0, (IntPtr)sizeof(ulong), ref only);
            placement.BeforeSleep();
            slept.Set();
            wake.Wait();
            placement.AfterWake();
        });
        worker.Start();
        slept.Wait();
        var producer = new Thread(() =>
        {
            ulong same = only;
            sched_setaffinity(0, (IntPtr)sizeof(ulong), ref same); // on the worker's only processor
            placement.KeepOffWaker();
            during = Affinity(workerThread);
        });
        producer.Start();
        producer.Join();
        wake.Set();
        worker.Join();

        Assert.That(during, Is.EqualTo(only), "a worker that may run in one place only is not narrowed to nothing");
        Assert.That(placement.IsOff, Is.False);
    }

    [Test]
    public void BeforeTheWorkerFirstSleeps_AWakerChangesNothing()
    {
        var placement = new ProcessorPlacement();
        Assert.DoesNotThrow(placement.KeepOffWaker);
        Assert.DoesNotThrow(placement.AfterWake);
        Assert.That(placement.Narrowings, Is.Zero, "no worker thread is known yet");
        Assert.That(placement.IsOff, Is.False);
    }

    private static void AssumeTwoProcessors()
    {
        Assume.That(OperatingSystem.IsLinux(), "Linux affinity");
        ulong mask = Affinity(0);
        Assume.That(System.Numerics.BitOperations.PopCount(mask), Is.GreaterThan(1), "more than one processor allowed");
    }

    private static ulong Affinity(int thread) => sched_getaffinity(thread, (IntPtr)sizeof(ulong), out ulong mask) == 0 ? mask : 0;

    private sealed class Flag : IWorkSignal
    {
        public bool Value;

        public bool HasWork => Volatile.Read(ref Value);
    }

    [DllImport("libc", SetLastError = true)]
    private static extern int gettid();

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_getaffinity(int pid, IntPtr size, out ulong mask);

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_setaffinity(int pid, IntPtr size, ref ulong mask);
}
