using System.Runtime.CompilerServices;
using LowLatencyLog.Capture;

namespace LowLatencyLog.Core;

/// <summary>Copies an item into a queue slot or a batch array.</summary>
/// <remarks>
/// Assigning a struct with several references in one go, .NET 9 and later use the bulk write barrier, which marks the
/// destination's GC cards whatever the references point to; every gen-0 collection then scans every slot written since
/// the previous one (measured: an application's gen-0 pauses about 4x as long while an async appender with a large
/// buffer is busy). The appenders' slot (<see cref="CapturedEvent"/>) is therefore stored field by field: each reference
/// takes the plain barrier, which marks a card only for a young object, and the appenders store none (interned or
/// long-lived strings, levels, repositories).
/// </remarks>
internal static class ItemCopy
{
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Copy<T>(ref T destination, in T source)
    {
#if NET8_0_OR_GREATER
        // A constant per instantiation: the JIT keeps one branch.
        if (typeof(T) == typeof(CapturedEvent))
        {
            CapturedEvent.Store(ref Unsafe.As<T, CapturedEvent>(ref destination), in Unsafe.As<T, CapturedEvent>(ref Unsafe.AsRef(in source)));
            return;
        }
#endif

        destination = source;
    }
}
