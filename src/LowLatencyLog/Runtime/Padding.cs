using System.Runtime.InteropServices;

namespace LowLatencyLog.Runtime;

/// <summary>Cache-line size used for padding.</summary>
internal static class CacheLine
{
    /// <summary>128, not 64: x64 prefetches adjacent 64-byte lines in pairs, so a neighbour one line away still interferes.</summary>
    internal const int Size = 128;
}

/// <summary>A counter alone on its cache line: a line of padding on either side. Checked by a layout test.</summary>
[StructLayout(LayoutKind.Explicit, Size = 2 * CacheLine.Size)]
internal struct PaddedLong
{
    [FieldOffset(CacheLine.Size)]
    public long Value;
}

/// <summary>A flag or small counter alone on its cache line. Checked by a layout test.</summary>
[StructLayout(LayoutKind.Explicit, Size = 2 * CacheLine.Size)]
internal struct PaddedInt
{
    [FieldOffset(CacheLine.Size)]
    public int Value;
}
