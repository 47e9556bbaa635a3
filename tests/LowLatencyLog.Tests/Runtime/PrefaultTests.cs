using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine;
using LowLatencyLog.Text;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Runtime;

/// <summary>
/// The ring, the hot-swap buffers, the slots' text arena and the file appender's byte buffer are resident once made
/// (every page mapped, asked of the kernel with <c>mincore</c>), so the first lap of events takes no page faults. Each
/// test first makes plain arrays of the same size, kept alive beside the buffer, until one is not resident: that shows this machine hands out
/// fresh pages, so the assertion on the buffer can fail.
/// </summary>
[NonParallelizable]
public sealed class PrefaultTests
{
    private const int Slots = 1 << 20; // 64 MB of 64-byte slots

    // Memory freed by earlier tests goes back to the operating system, so what is made next gets fresh pages.
    [SetUp]
    public void ReturnFreedMemory() => GC.Collect(2, GCCollectionMode.Aggressive, blocking: true, compacting: true);

    [Test]
    public void DisruptorRing_IsResidentOnceMade() =>
        AssertResident(Slots * 64L, () => Field<Array>(new DisruptorQueue<CapturedEvent>(Slots, ProducerType.Multi), "_slots"));

    [Test]
    public void HotSwapBuffers_AreResidentOnceMade()
    {
        HotSwapQueue<CapturedEvent>? queue = null;
        AssertResident(Slots * 64L / 2, () => Field<Array>(Field<object>(queue = new HotSwapQueue<CapturedEvent>(Slots, grow: false), "_active"), "Slots"));
        AssertResident(Slots * 64L / 2, () => Field<Array>(Field<object>(queue!, "_standby"), "Slots"));
    }

    [Test]
    public void SlotTextArena_IsResidentOnceMade() =>
        AssertResident(ItemCopy.PrepareLimit * (long)MessageText.MaxLength * sizeof(char), () => MessageText.AllocateArena(ItemCopy.PrepareLimit));

    [Test]
    public void FileBuffer_IsResidentOnceMade() =>
        AssertResident(64 << 20, () => Field<Array>(new EventBufferWriter(new UTF8Encoding(false), 64 << 20), "_bytes"));

    private static void AssertResident(long bytes, Func<Array> make)
    {
        Assume.That(OperatingSystem.IsLinux(), "mincore");

        // Plain arrays of the buffer's size, kept alive, until one is not resident: the memory the collector kept
        // (already resident, so it would pass any buffer) is then in use, and what comes next is fresh.
        var controls = new List<byte[]>();
        while (controls.Count < 8 && (controls.Count == 0 || ResidentFraction(controls[^1], bytes) >= 0.5))
        {
            controls.Add(new byte[bytes]);
        }

        Assume.That(ResidentFraction(controls[^1], bytes), Is.LessThan(0.5), "a new array of this size is not resident here");
        Array buffer = make();
        Assert.That(ResidentFraction(buffer, bytes), Is.EqualTo(1.0), "every page of the buffer is resident");
        GC.KeepAlive(controls);
    }

    private static unsafe double ResidentFraction(Array array, long bytes)
    {
        // Large arrays live in the large-object heap, which the collector does not move unless asked to.
        long start = (long)Unsafe.AsPointer(ref MemoryMarshal.GetArrayDataReference(array));
        long page = Environment.SystemPageSize;
        long first = (start + page - 1) / page * page;
        long pages = (start + bytes - first) / page;
        var resident = new byte[pages];
        Assert.That(mincore((IntPtr)first, (UIntPtr)(ulong)(pages * page), resident), Is.Zero, "mincore");
        GC.KeepAlive(array);
        return resident.Count(b => (b & 1) != 0) / (double)pages;
    }

    private static int ElementSize(Array array) =>
        (int)typeof(Unsafe).GetMethod(nameof(Unsafe.SizeOf))!.MakeGenericMethod(array.GetType().GetElementType()!).Invoke(null, null)!;

    private static T Field<T>(object owner, string name) =>
        (T)owner.GetType().GetField(name, BindingFlags.Instance | BindingFlags.NonPublic | BindingFlags.Public)!.GetValue(owner)!;

    [DllImport("libc", SetLastError = true)]
    private static extern int mincore(IntPtr address, UIntPtr length, byte[] vector);
}
