using System;
using System.Reflection;
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
            ulong here = 1UL << ProcessorPlacement.CurrentProcessor();
            sched_setaffinity(0, (IntPtr)sizeof(ulong), ref here); // so the processor read below is the one it narrows off
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
        var wakers = new int[Rounds];
        ulong before = 0, after = 0;
        using var taken = new SemaphoreSlim(0);
        using var producerDone = new ManualResetEventSlim(false);
        var worker = new Thread(() =>
        {
            before = Affinity(0);
            for (int i = 0; i < Rounds; i++)
            {
                strategy.WaitForWork(work);
                Volatile.Write(ref work.Value, false);
                taken.Release();
            }

            producerDone.Wait();
            strategy.Placement.AfterWake(); // what the next wake-up or sleep would do
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
                Thread.Sleep(2); // past its last look for work: the worker sleeps, so this wake-up is a real one
                wakers[i] = ProcessorPlacement.CurrentProcessor();
                Volatile.Write(ref work.Value, true);
                strategy.SignalWork();
                taken.Wait();
            }

            producerDone.Set();
        });
        producer.Start();
        producer.Join();
        worker.Join();

        Assert.That(wakers, Is.All.EqualTo(pinned), "the producer stayed where it was pinned");
        Assert.That(strategy.Placement.Narrowings, Is.EqualTo(Rounds), "each wake-up kept the worker off the producer's processor");
        Assert.That(after, Is.EqualTo(before), "nothing stays narrowed");
    }

    [Test]
    public void AnAffinityReadWhileAProducerNarrowsTheWorker_IsNotTakenForItsOwn_AndTheNarrowingIsGivenBack()
    {
        // A producer that took the flag of an earlier sleep may narrow the worker late, while it already runs again and
        // goes to sleep once more. The test plays that producer, stopped in the middle of its call.
        AssumeTwoProcessors();
        var placement = new ProcessorPlacement();
        int workerThread = 0;
        ulong before = 0, published = 0, restored = 0;
        using var slept = new ManualResetEventSlim(false);
        using var narrowing = new ManualResetEventSlim(false);
        using var sleptAgain = new ManualResetEventSlim(false);
        using var narrowed = new ManualResetEventSlim(false);
        var worker = new Thread(() =>
        {
            workerThread = gettid();
            before = Affinity(0);
            placement.BeforeSleep();
            slept.Set();
            narrowing.Wait();
            placement.BeforeSleep(); // reads a narrowed affinity while the producer's call is under way
            published = placement.Allowed;
            sleptAgain.Set();
            narrowed.Wait();
            placement.AfterWake();
            restored = Affinity(0);
        });
        worker.Start();
        slept.Wait();

        FieldInfo inFlight = typeof(ProcessorPlacement).GetField("_narrowing", BindingFlags.Instance | BindingFlags.NonPublic)!;
        FieldInfo flag = typeof(ProcessorPlacement).GetField("_narrowed", BindingFlags.Instance | BindingFlags.NonPublic)!;
        inFlight.SetValue(placement, 1);
        ulong others = before & ~(1UL << System.Numerics.BitOperations.TrailingZeroCount(before));
        Assert.That(sched_setaffinity(workerThread, (IntPtr)sizeof(ulong), ref others), Is.Zero);
        narrowing.Set();
        sleptAgain.Wait();
        flag.SetValue(placement, 1);
        inFlight.SetValue(placement, 2);
        narrowed.Set();
        worker.Join();

        Assert.That(published, Is.EqualTo(before), "what the worker publishes as its own affinity is still everything it had");
        Assert.That(restored, Is.EqualTo(before), "and the narrowing is given back once the producer's call has ended");
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
