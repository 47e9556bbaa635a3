using System;

namespace LowLatencyLog.Capture;

/// <summary>
/// A message's text in a region of text storage that a queue slot owns and reuses lap after lap (log4j2's
/// garbage-free ring keeps a reusable text buffer per slot the same way): a view of it, read by the worker. A slot that
/// holds the caller's strings keeps them alive for as long as the event waits, so a full buffer promotes them to the
/// older generations; a slot that holds a copy in its own, long-lived storage keeps nothing young alive.
/// </summary>
/// <remarks>
/// <para>The regions of a buffer's slots are one array, its arena (<see cref="AllocateArena"/>), allocated with the
/// buffer: a <c>char[]</c> holds no references, so the collector never scans it, and the slots hold no object of their
/// own that it would copy or mark (docs/design.md, "A slot owns its message text").</para>
/// <para>A region is written by the producer that claimed the slot, read by the worker after the slot's publication,
/// and moved with the event into the worker's batch (the batch entry's region takes its place in the slot), so it is
/// never written while it is read. A message longer than <see cref="MaxLength"/> stays a string.</para>
/// </remarks>
internal readonly struct MessageText
{
    /// <summary>The longest message copied into a slot's storage (chars), and the size of each slot's region: it bounds
    /// what the slots keep for good (docs/design.md, "A slot owns its message text"); a longer message is held as the
    /// caller's string.</summary>
    public const int MaxLength = 256;

    public MessageText(char[] chars, int offset, int length)
    {
        Chars = chars;
        Offset = offset;
        Length = length;
    }

    /// <summary>The arena (or a slot's own region) the text is in, from <see cref="Offset"/>.</summary>
    public char[] Chars { get; }

    public int Offset { get; }

    public int Length { get; }

#if NET8_0_OR_GREATER
    public ReadOnlySpan<char> Span => new ReadOnlySpan<char>(Chars, Offset, Length);
#endif

    public override string ToString() => new string(Chars, Offset, Length);

    /// <summary>
    /// One region of <see cref="MaxLength"/> chars for each of <paramref name="regions"/> slots (or batch entries),
    /// region <c>i</c> at <c>i * MaxLength</c>. In the .NET 8 build on the pinned object heap, which the collector
    /// counts as old from the start and never compacts: nothing copies it, and a slot that refers to it marks no card.
    /// A plain array elsewhere (one of 85,000 bytes or more, 166 slots, goes to the large object heap).
    /// </summary>
    public static char[] AllocateArena(int regions)
    {
        int length = checked(regions * MaxLength);
#if NET8_0_OR_GREATER
        char[] arena = GC.AllocateUninitializedArray<char>(length, pinned: true);
#else
        char[] arena = new char[length];
#endif
        // Written once now, so that the first lap of events does not fault its pages in (docs/design.md, "Buffers
        // resident from the start"); an uninitialized array is not written by its allocation.
        Array.Clear(arena, 0, arena.Length);
        return arena;
    }

    /// <summary>A region of a slot's own, for a slot that has none in an arena (a buffer above the arena limit, the
    /// hot swap's overflow list): allocated on its first use, then kept with the slot as an arena's region is.</summary>
    public static char[] AllocateRegion() => new char[MaxLength];
}
