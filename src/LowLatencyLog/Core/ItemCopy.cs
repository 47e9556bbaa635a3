using System;
using System.Runtime.CompilerServices;
using LowLatencyLog.Capture;

namespace LowLatencyLog.Core;

/// <summary>Copies an item into a queue slot, moves it out into the worker's batch, and clears a delivered batch.</summary>
/// <remarks>
/// <para>The appenders' slot (<see cref="CapturedEvent"/>) owns storage for its message text, which must stay with a
/// slot or a batch entry rather than be copied as a reference: storing copies the text into the slot's storage,
/// draining swaps the slot's storage with the batch entry's (delivered) one, and clearing keeps it.</para>
/// <para>Assigning a struct with several references in one go, .NET 9 and later use the bulk write barrier, which marks
/// the destination's GC cards whatever the references point to; every gen-0 collection then scans every slot written
/// since the previous one (an application's gen-0 pauses grow several times while an async appender with a large
/// buffer is busy). The slot is therefore stored field by field: each reference takes the plain barrier, which marks a
/// card only for a young object, and the appenders store none (interned or long-lived strings, levels, repositories,
/// the slot's own text storage).</para>
/// </remarks>
internal static class ItemCopy
{
    /// <summary>Producer side: stores <paramref name="source"/> in a claimed slot.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Copy<T>(ref T destination, in T source)
    {
        // A constant per instantiation: the JIT keeps one branch.
        if (typeof(T) == typeof(CapturedEvent))
        {
            CapturedEvent.Store(ref Unsafe.As<T, CapturedEvent>(ref destination), in Unsafe.As<T, CapturedEvent>(ref Unsafe.AsRef(in source)));
            return;
        }

        destination = source;
    }

    /// <summary>
    /// Slots of queues up to this capacity get their item's storage when the queue is created, so that no logging call
    /// allocates it (the first lap through a larger queue does, once per slot).
    /// </summary>
    public const int PrepareLimit = 65536;

    /// <summary>Gives a new slot (or batch entry) the storage its items keep: a slot's message text.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Prepare<T>(ref T slot)
    {
        if (typeof(T) == typeof(CapturedEvent))
        {
            CapturedEvent.Clear(ref Unsafe.As<T, CapturedEvent>(ref slot), new MessageText(0));
        }
    }

    /// <summary>Prepares every entry of a batch array or a ring of items (up to <see cref="PrepareLimit"/>).</summary>
    public static T[] Prepare<T>(T[] items)
    {
        if (typeof(T) == typeof(CapturedEvent) && items.Length <= PrepareLimit)
        {
            for (int i = 0; i < items.Length; i++)
            {
                Prepare(ref items[i]);
            }
        }

        return items;
    }

    /// <summary>Worker side: moves a published slot's item into the batch and leaves the slot empty.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Take<T>(ref T destination, ref T slot)
    {
        if (typeof(T) == typeof(CapturedEvent))
        {
            CapturedEvent.Take(ref Unsafe.As<T, CapturedEvent>(ref destination), ref Unsafe.As<T, CapturedEvent>(ref slot));
            return;
        }

        destination = slot;
        slot = default!;
    }

    /// <summary>Worker side: forgets the delivered items' references (the queue keeps none alive).</summary>
    public static void ClearDelivered<T>(T[] items, int count)
    {
        if (typeof(T) == typeof(CapturedEvent))
        {
            CapturedEvent[] events = Unsafe.As<CapturedEvent[]>(items);
            for (int i = 0; i < count; i++)
            {
                ref CapturedEvent item = ref events[i];
                CapturedEvent.Clear(ref item, item.Text);
            }

            return;
        }

        Array.Clear(items, 0, count);
    }
}
