using LowLatencyLog.Engine;

namespace LowLatencyLog.Capture;

/// <summary>How the queues hold <see cref="CapturedEvent"/>s: the message text stays with its slot or batch entry
/// (<see cref="CapturedEvent.Store"/>, <see cref="CapturedEvent.Take"/>), and a cleared item keeps its storage.</summary>
internal sealed class CapturedEventStorage : SlotStorage<CapturedEvent>
{
    public static readonly CapturedEventStorage Instance = new CapturedEventStorage();

    private CapturedEventStorage()
    {
    }

    public override void Store(ref CapturedEvent destination, in CapturedEvent source) => CapturedEvent.Store(ref destination, in source);

    public override void Take(ref CapturedEvent destination, ref CapturedEvent slot) => CapturedEvent.Take(ref destination, ref slot);

    public override void Prepare(ref CapturedEvent slot) => CapturedEvent.Clear(ref slot, new MessageText(0));

    public override void ClearDelivered(ref CapturedEvent item) => CapturedEvent.Clear(ref item, item.Text);

    public override void Skip(ref CapturedEvent slot) => CapturedEvent.Skip(ref slot);

    public override bool IsSkipped(in CapturedEvent item) => ReferenceEquals(item.Level, CapturedEvent.SkippedMark);
}
