using System;
using System.Runtime.CompilerServices;

namespace LowLatencyLog.Engine;

/// <summary>Copies an item into a queue slot, moves it out into the worker's batch, and clears a delivered batch.</summary>
/// <remarks>
/// <para>An item with storage of its own (<see cref="SlotStorage{T}"/>: the appenders' slot owns storage for its
/// message text, which must stay with a slot or a batch entry rather than be copied as a reference) is stored, taken
/// and cleared by its type's rules; any other by assignment.</para>
/// <para>Assigning a struct with several references in one go, .NET 9 and later use the bulk write barrier, which marks
/// the destination's GC cards whatever the references point to; every gen-0 collection then scans every slot written
/// since the previous one (an application's gen-0 pauses grow several times while an async appender with a large
/// buffer is busy). The slot is therefore stored field by field: each reference takes the plain barrier, which marks a
/// card only for a young object, and the appenders store few (interned or long-lived strings, levels, repositories,
/// the buffer's text arena); the caller's message and exception objects, carried only for children that may read
/// them, are the young ones. The appenders' slot type does this in its storage rules.</para>
/// </remarks>
internal static class ItemCopy
{
    /// <summary>Producer side: stores <paramref name="source"/> in a claimed slot.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Copy<T>(ref T destination, in T source)
    {
        // A constant once the type is initialized (a queue prepares its slots first): the JIT keeps one branch.
        SlotStorage<T>? storage = SlotStorage<T>.OfItem;
        if (storage != null)
        {
            storage.Store(ref destination, in source);
            return;
        }

        destination = source;
    }

    /// <summary>
    /// Producer side, in the handler of a claim-then-publish whose store threw: the claimed slot becomes a mark the
    /// worker drops (<see cref="RemoveSkipped"/>), and the queue publishes it, so that no claim is left unpublished
    /// (the worker would wait at it for good). Never throws.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static void Skip<T>(ref T slot)
    {
        SlotStorage<T>? storage = SlotStorage<T>.OfItem;
        if (storage != null)
        {
            storage.Skip(ref slot);
            return;
        }

        slot = default!; // unreachable: an assignment does not throw
    }

    /// <summary>
    /// Worker side: moves the skipped marks of a drained batch behind the events (entries are swapped, so each keeps
    /// its storage) and returns how many events come first. Every entry up to <paramref name="count"/> is still
    /// cleared as delivered.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int RemoveSkipped<T>(T[] items, int count)
    {
        SlotStorage<T>? storage = SlotStorage<T>.OfItem;
        if (storage == null)
        {
            return count;
        }

        int kept = 0;
        for (int i = 0; i < count; i++)
        {
            if (storage.IsSkipped(in items[i]))
            {
                continue;
            }

            if (kept != i)
            {
                (items[kept], items[i]) = (items[i], items[kept]);
            }

            kept++;
        }

        return kept;
    }

    /// <summary>
    /// Buffers up to this many slots get their items' storage with the buffer, as one arena (with the appenders' slot,
    /// 512 bytes a slot: 32 MB at this limit); in a larger one each slot gets storage of its own on its first use.
    /// </summary>
    public const int PrepareLimit = 65536;

    /// <summary>The arena for a buffer of <paramref name="count"/> slots or batch entries; null for an item stored by
    /// assignment or a buffer above <see cref="PrepareLimit"/>.</summary>
    public static object? Arena<T>(int count) =>
        count <= PrepareLimit && SlotStorage<T>.OfItem is { } storage ? storage.AllocateArena(count) : null;

    /// <summary>Gives a new slot (or batch entry) its part of the buffer's <paramref name="arena"/>, if there is one.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Prepare<T>(ref T slot, object? arena, int index)
    {
        if (arena != null)
        {
            SlotStorage<T>.OfItem!.Prepare(ref slot, arena, index);
        }
    }

    /// <summary>Prepares every entry of a batch array or a ring of items (up to <see cref="PrepareLimit"/>).</summary>
    public static T[] Prepare<T>(T[] items)
    {
        object? arena = Arena<T>(items.Length);
        for (int i = 0; arena != null && i < items.Length; i++)
        {
            Prepare(ref items[i], arena, i);
        }

        return items;
    }

    /// <summary>Worker side: moves a published slot's item into the batch and leaves the slot empty.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Take<T>(ref T destination, ref T slot)
    {
        SlotStorage<T>? storage = SlotStorage<T>.OfItem;
        if (storage != null)
        {
            storage.Take(ref destination, ref slot);
            return;
        }

        destination = slot;
        slot = default!;
    }

    /// <summary>Worker side: forgets the delivered items' references (the queue keeps none alive).</summary>
    public static void ClearDelivered<T>(T[] items, int count)
    {
        SlotStorage<T>? storage = SlotStorage<T>.OfItem;
        if (storage != null)
        {
            for (int i = 0; i < count; i++)
            {
                storage.ClearDelivered(ref items[i]);
            }

            return;
        }

        Array.Clear(items, 0, count);
    }
}
