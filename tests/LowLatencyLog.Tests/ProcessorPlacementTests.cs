using System;
using System.Runtime.InteropServices;
using System.Threading;
using LowLatencyLog.Core;
using NUnit.Framework;

namespace LowLatencyLog.Tests;

/// <summary>The woken worker moves off its waker's processor during a burst, and keeps every processor it had.</summary>
public sealed class ProcessorPlacementTests
{
    [TestCase(-1, 3, 1000, false)] // nobody recorded (an early wake-up, or a platform that does not tell)
    [TestCase(3, 3, ProcessorPlacement.BurstBacklog - 1, false)] // an occasional event: sharing the core is fine
    [TestCase(2, 3, 1000, false)] // already apart
    [TestCase(3, 3, ProcessorPlacement.BurstBacklog, true)]
    public void ShouldMoveOff_OnlyOnTheWakersProcessor_DuringABurst(int waker, int current, long backlog, bool expected) =>
        Assert.That(ProcessorPlacement.ShouldMoveOff(waker, current, backlog), Is.EqualTo(expected));

    [Test]
    public void Leave_RunsTheThreadElsewhere_AndAllowGivesEveryProcessorBack()
    {
        Assume.That(OperatingSystem.IsLinux() && Environment.ProcessorCount > 1, "Linux affinity, two processors");
        ulong[]? before = null, after = null, restored = null;
        int left = -1, now = -1;
        bool leftOk = false, allowed = false;
        var thread = new Thread(() =>
        {
            before = Affinity();
            left = ProcessorPlacement.CurrentProcessor();
            leftOk = ProcessorPlacement.Leave(left, out restored);
            now = ProcessorPlacement.CurrentProcessor();
            after = Affinity();
            allowed = restored != null && ProcessorPlacement.Allow(restored);
            restored = Affinity();
        });
        thread.Start();
        thread.Join();

        Assume.That(before!.Length, Is.GreaterThan(0), "the affinity can be read here");
        Assume.That(System.Linq.Enumerable.Sum(before, w => (long)System.Numerics.BitOperations.PopCount(w)), Is.GreaterThan(1), "more than one processor allowed");
        Assert.That(leftOk, Is.True);
        Assert.That(now, Is.Not.EqualTo(left), "the thread runs on another processor once Leave returns");
        Assert.That(after![left / 64] & (1UL << (left % 64)), Is.Zero, "the processor left is out of the affinity meanwhile");
        Assert.That(allowed, Is.True);
        Assert.That(restored, Is.EqualTo(before), "every processor the thread had is allowed again");
    }

    [Test]
    public void MoveOffIfShared_OnAnotherProcessorOrWithoutABurst_LeavesTheAffinityAlone()
    {
        Assume.That(OperatingSystem.IsLinux(), "Linux affinity");
        ulong[]? before = null, after = null;
        var thread = new Thread(() =>
        {
            before = Affinity();
            int here = ProcessorPlacement.CurrentProcessor();
            ProcessorPlacement.MoveOffIfShared(here, ProcessorPlacement.BurstBacklog - 1);
            ProcessorPlacement.MoveOffIfShared(here + 1, 1_000_000);
            after = Affinity();
        });
        thread.Start();
        thread.Join();
        Assert.That(after, Is.EqualTo(before));
    }

    private static ulong[] Affinity()
    {
        var mask = new ulong[16];
        return sched_getaffinity(0, (IntPtr)(mask.Length * sizeof(ulong)), mask) == 0 ? mask : Array.Empty<ulong>();
    }

    [DllImport("libc", SetLastError = true)]
    private static extern int sched_getaffinity(int pid, IntPtr size, [Out] ulong[] mask);
}
