using System;

namespace LowLatencyLog.Runtime;

/// <summary>Buffers whose memory is written once when they are made, so the first lap of events does not pay for it.</summary>
/// <remarks>
/// A large new array is backed by memory the operating system maps only when it is first written: one page fault per
/// 4 KB page (docs/design.md, "Buffers resident from the start"). Written here, at activation, the cost lands there instead of on the producers' first 65,536 events (one event in 64
/// took a fault) and on the worker's first buffer. The bounded queue writes every slot when it is made anyway (their
/// sequence numbers). The memory was committed by the allocation, so this adds no memory, only makes it resident now.
/// </remarks>
internal static class Prefault
{
    /// <summary>Writes every page of <paramref name="array"/> (zeros: a new array reads the same afterwards).</summary>
    public static T[] Touch<T>(T[] array)
    {
        Array.Clear(array, 0, array.Length);
        return array;
    }
}
