using System;
using System.Collections.Generic;
using System.Linq;
using log4net;
using log4net.Core;
using LowLatencyLog.Appender;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// Async 22: a slot's text storage is invisible to the collector. Every slot's region is in one reference-free array
/// allocated with the buffer (the worker's batch has one of its own), which the collector counts as old from the start,
/// so there is no object per slot for a young collection to copy or a full one to mark.
/// </summary>
public sealed class SlotArenaTests
{
    public static IEnumerable<TestCaseData> Queues()
    {
        yield return new TestCaseData("BoundedQueue", 1).SetArgDisplayNames("BoundedQueue");
        yield return new TestCaseData("HotSwap", 2).SetArgDisplayNames("HotSwap"); // two buffers, an arena each
        yield return new TestCaseData("DisruptorMulti", 1).SetArgDisplayNames("Disruptor Multi");
        yield return new TestCaseData("DisruptorSingle", 1).SetArgDisplayNames("Disruptor Single");
    }

    private static IQueueFactory Factory(string kind) => kind switch
    {
        "BoundedQueue" => BoundedQueueFactory.Instance,
        "HotSwap" => HotSwapQueueFactory.Instance,
        "DisruptorMulti" => DisruptorQueueFactory.Multi,
        _ => DisruptorQueueFactory.Single,
    };

    [TestCaseSource(nameof(Queues))]
    public void EverySlotsText_IsARegionOfOneOldArrayPerBuffer(string kind, int buffers)
    {
        const int capacity = 64, batch = 16;
        IEventQueue<CapturedEvent> queue = Factory(kind).Create<CapturedEvent>(capacity, grow: false);
        CapturedEvent[] drained = ItemCopy.Prepare(new CapturedEvent[batch]);
        var arenas = new HashSet<char[]>();
        var regions = new HashSet<(char[], int)>();
        for (int round = 0; round < 3 * capacity / batch; round++)
        {
            // A batch at a time: the hot swap's producers see half the capacity until the worker swaps the buffers.
            for (int i = 0; i < batch; i++)
            {
                CapturedEvent item = Event("message " + round + "." + i);
                Assert.That(queue.TryEnqueue(in item), Is.EqualTo(EnqueueResult.Enqueued));
            }

            Assert.That(queue.Drain(drained), Is.EqualTo(batch));
            for (int i = 0; i < batch; i++)
            {
                MessageText text = drained[i].OwnedText!.Value;
                Assert.That(text.ToString(), Is.EqualTo("message " + round + "." + i));
                Assert.That(text.Offset % MessageText.MaxLength, Is.Zero, "a region of the arena");
                arenas.Add(text.Chars);
                regions.Add((text.Chars, text.Offset));
            }

            ItemCopy.ClearDelivered(drained, batch);
        }

        Assert.That(arenas, Has.Count.EqualTo(buffers + 1), "one array per buffer, one for the batch: none per slot");
        Assert.That(arenas.Select(a => a.Length).Sum(), Is.EqualTo((capacity + batch) * MessageText.MaxLength));
        Assert.That(regions, Has.Count.LessThanOrEqualTo(capacity + batch), "regions are reused lap after lap");
        // The .NET 8 build allocates arenas on the pinned object heap; the netstandard2.0 build (what .NET Framework
        // apps load) allocates a plain array, old from its allocation only on the large object heap.
        if (LibraryBuild.IsNetCore)
        {
            Assert.That(arenas.Select(GC.GetGeneration), Is.All.EqualTo(GC.MaxGeneration),
                "on the pinned object heap: old from its allocation, never copied");
        }
    }

    [TestCaseSource(nameof(Queues))]
    public void ASlotWithoutARegion_GetsOneOfItsOwn_AndKeepsIt(string kind, int buffers)
    {
        // A batch entry that was never prepared (as in a buffer above the arena limit) has no region.
        IEventQueue<CapturedEvent> queue = Factory(kind).Create<CapturedEvent>(8, grow: false);
        var drained = new CapturedEvent[1];
        CapturedEvent stored = default;
        CapturedEvent item = Event("first");
        CapturedEvent.Store(ref stored, in item);
        Assert.That(stored.OwnedText?.ToString(), Is.EqualTo("first"));
        Assert.That(stored.OwnedText!.Value.Chars, Has.Length.EqualTo(MessageText.MaxLength), "a region of its own");

        // Through a queue: the unprepared batch entry's empty region goes to the slot, which then gets its own.
        for (int i = 0; i < 3 * buffers; i++)
        {
            CapturedEvent next = Event("event " + i);
            Assert.That(queue.TryEnqueue(in next), Is.EqualTo(EnqueueResult.Enqueued));
            Assert.That(queue.Drain(drained), Is.EqualTo(1));
            Assert.That(drained[0].MessageString, Is.EqualTo("event " + i));
            ItemCopy.ClearDelivered(drained, 1);
        }
    }

    private static CapturedEvent Event(string message) =>
        CapturedEvent.CaptureForQueue(new LoggingEvent(typeof(SlotArenaTests), null, "App", Level.Info, message, null), CapturedEvent.SlotFlags);
}

/// <summary>
/// Async 22, through the appenders: starting an async appender gives the young generation nothing per slot, so the
/// collections right after start promote about what they promote without it (each slot with text storage of its own,
/// 65,536 small arrays and their holders, promoted 36-37 MB over those collections).
/// </summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class SlotArenaPromotionTests
{
    private const int BufferSize = 65_536;
    private readonly AsyncAppenderKind _kind;

    public SlotArenaPromotionTests(AsyncAppenderKind kind) => _kind = kind;

    [Test]
    public void StartingAnAppender_AndItsFirstYoungCollection_PromoteNothingPerSlot()
    {
        using var promotions = new GcPromotions();
        using var harness = new Log4netHarness("<log4net />");
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        long before = GC.CollectionCount(0);
        harness.Configure($@"<log4net>
            <appender name=""async"" type=""{_kind.TypeAttribute}"">
              <bufferSize value=""{BufferSize}"" />
              <appender-ref ref=""null"" />
            </appender>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
          </log4net>");
        ILog log = harness.Logger("orders");
        for (int i = 0; i < 1_000; i++)
        {
            log.Info("Order " + i + " filled");
        }

        Assert.That(harness.Appender<AsyncForwardingAppender>("async").Flush(60_000), Is.True);
        GC.Collect(0);
        long after = GC.CollectionCount(0);

        IReadOnlyList<GcPromotions.Collection> run = promotions.Between(before, after, TimeSpan.FromSeconds(10));
        Assert.That(run, Is.Not.Empty, "the runtime reported the collections");
        long promoted = run.Sum(c => c.PromotedFromGen0 + c.PromotedFromGen1);
        TestContext.Out.WriteLine($"{_kind}: {run.Count} collections, {promoted:N0} B promoted");
        foreach (GcPromotions.Collection c in run)
        {
            TestContext.Out.WriteLine("  " + c);
        }

        // The appender's own objects, the worker's batch, log4net's configuration: well under 100 bytes a slot.
        Assert.That(promoted, Is.LessThan(2_000_000L), "nothing per slot survives a young collection");
    }
}
