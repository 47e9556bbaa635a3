using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using LowLatencyLog.Runtime;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Runtime;

/// <summary>A padded value has a cache line of its own on each side, so no other field shares its line.</summary>
public sealed class PaddingTests
{
    [Test]
    public void EveryPaddedValue_HasALineOfItsOwn()
    {
        Assert.That(CacheLine.Size, Is.GreaterThanOrEqualTo(64));
        AssertAlone<PaddedLong>(nameof(PaddedLong.Value), sizeof(long));
        AssertAlone<PaddedInt>(nameof(PaddedInt.Value), sizeof(int));
    }

    private static void AssertAlone<T>(string field, int size) where T : struct
    {
        int offset = Marshal.OffsetOf<T>(field).ToInt32();
        Assert.That(offset, Is.GreaterThanOrEqualTo(CacheLine.Size), typeof(T).Name + ": padding before");
        Assert.That(Unsafe.SizeOf<T>() - offset - size, Is.GreaterThanOrEqualTo(CacheLine.Size - size), typeof(T).Name + ": padding after");
    }
}
