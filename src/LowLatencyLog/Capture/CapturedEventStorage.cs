using LowLatencyLog.Engine;

namespace LowLatencyLog.Capture;

/// <summary>How the queues hold <see cref="CapturedEvent"/>s: each slot or batch entry owns a region of its buffer's
/// text arena, the message text is copied into it (<see cref="CapturedEvent.Store"/>), draining swaps regions
/// (<see cref="CapturedEvent.Take"/>), and a cleared item keeps its region.</summary>
internal sealed class CapturedEventStorage : SlotStorage<CapturedEvent>
{
    public static readonly CapturedEventStorage Instance = new CapturedEventStorage();

    private CapturedEventStorage()
    {
    }

    public override void Store(ref CapturedEvent destination, in CapturedEvent source) => CapturedEvent.Store(ref destination, in source);

    public override void Take(ref CapturedEvent destination, ref CapturedEvent slot) => CapturedEvent.Take(ref destination, ref slot);

    public override object AllocateArena(int count) => MessageText.AllocateArena(count);

    public override void Prepare(ref CapturedEvent slot, object arena, int index) =>
        CapturedEvent.Clear(ref slot, (char[])arena, index * MessageText.MaxLength);

    public override void ClearDelivered(ref CapturedEvent item) => CapturedEvent.ClearDelivered(ref item);

    public override void Skip(ref CapturedEvent slot) => CapturedEvent.Skip(ref slot);

    public override bool IsSkipped(in CapturedEvent item) => ReferenceEquals(item.Level, CapturedEvent.SkippedMark);
}
