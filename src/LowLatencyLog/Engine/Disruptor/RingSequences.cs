using System.Runtime.InteropServices;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Engine.Disruptor;

/// <summary>
/// The sequences of a <see cref="DisruptorQueue{T}"/>, grouped by the thread that writes them, each group on a cache line
/// of its own with a line of padding before the first and after the last. Checked by a layout test.
/// </summary>
[StructLayout(LayoutKind.Explicit, Size = 3 * CacheLine.Size)]
internal struct RingSequences
{
    internal const int Line = CacheLine.Size;

    // ---- Producer side: written by every claim, read together by every claim. ----

    /// <summary>
    /// The next position to claim (so: positions claimed so far). Multi: advanced by a compare-and-swap. Single: written by
    /// the owner with a release store. <see cref="DisruptorQueue{T}.SealedBit"/> marks it closed.
    /// </summary>
    [FieldOffset(Line)]
    public long Cursor;

    /// <summary>
    /// A copy of <see cref="Consumer"/> that producers keep so that a claim reads the worker's line only when the ring
    /// looks full. Read and written as single atomic accesses (Volatile, which 32-bit runtimes need for a long) but without
    /// further synchronization: it may lag (costing a re-read), but it only ever holds a value the
    /// consumer sequence really had, so it never says there is room that is not there.
    /// </summary>
    [FieldOffset(Line + 8)]
    public long GatingCache;

    /// <summary><see cref="DisruptorQueue{T}.SingleMode"/>, <see cref="DisruptorQueue{T}.HandingOverMode"/> (while a
    /// hand-over waits for the owner) or <see cref="DisruptorQueue{T}.MultiMode"/>; moves that way once at most.</summary>
    [FieldOffset(Line + 16)]
    public int Mode;

    /// <summary>Single: the managed thread id of the first publisher, 0 until there is one.</summary>
    [FieldOffset(Line + 20)]
    public int Owner;

    /// <summary>Single: 1 while the owner is inside a single-producer claim; read only by a hand-over to Multi.</summary>
    [FieldOffset(Line + 24)]
    public int OwnerBusy;

    // ---- Worker side. ----

    /// <summary>
    /// The gating sequence: the next position the worker will take. Every position below it has been read and its slot
    /// cleared. Written by the worker with a release store after each drain; read by producers when the ring looks full.
    /// </summary>
    [FieldOffset(2 * Line)]
    public long Consumer;
}
