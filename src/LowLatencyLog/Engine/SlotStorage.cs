namespace LowLatencyLog.Engine;

/// <summary>An item type that keeps storage of its own in a queue slot names the <see cref="SlotStorage{T}"/> that
/// stores, takes and clears it; any other item is stored by assignment.</summary>
internal interface ISlotItem<T>
{
    /// <summary>The storage rules of the item type (the same instance for every item).</summary>
    SlotStorage<T> Storage { get; }
}

/// <summary>
/// How queue slots and the worker's batch hold items of a type that keeps storage with its slot (<see cref="ItemCopy"/>
/// uses it). Chosen once per item type, from <see cref="ISlotItem{T}"/>: a static read-only field, which the JIT reads
/// as a constant, so a queue's code calls the item's own methods directly (or keeps the plain assignment).
/// </summary>
internal abstract class SlotStorage<T>
{
    /// <summary>The storage of <typeparamref name="T"/>, or null for an item stored by assignment.</summary>
    public static readonly SlotStorage<T>? OfItem = default(T) is ISlotItem<T> item ? item.Storage : null;

    /// <summary>Producer side: stores <paramref name="source"/> in a claimed slot.</summary>
    public abstract void Store(ref T destination, in T source);

    /// <summary>Worker side: moves a published slot's item into the batch and leaves the slot empty.</summary>
    public abstract void Take(ref T destination, ref T slot);

    /// <summary>The storage that <paramref name="count"/> slots (or batch entries) keep, allocated with their buffer:
    /// one object that holds no references, so that the collector has nothing per slot to copy or scan.</summary>
    public abstract object AllocateArena(int count);

    /// <summary>Gives a new slot or batch entry its part (<paramref name="index"/>) of an arena.</summary>
    public abstract void Prepare(ref T slot, object arena, int index);

    /// <summary>Worker side: forgets a delivered item's references, keeping its storage.</summary>
    public abstract void ClearDelivered(ref T item);

    /// <summary>Producer side, when <see cref="Store"/> threw: leaves the claimed slot holding an item the worker
    /// recognises as no event (<see cref="IsSkipped"/>), so that the slot can still be published. Must not throw.</summary>
    public abstract void Skip(ref T slot);

    /// <summary>Worker side: whether a taken item is the mark <see cref="Skip"/> left (delivered to no one).</summary>
    public abstract bool IsSkipped(in T item);
}
