using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using log4net.Core;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// The queues store the appenders' slot field by field (<see cref="ItemCopy"/>): every field must arrive, also one
/// added to <see cref="CapturedEvent"/> later.
/// </summary>
public sealed class SlotCopyTests
{
    private static readonly FieldInfo[] Fields = typeof(CapturedEvent).GetFields(BindingFlags.Public | BindingFlags.NonPublic | BindingFlags.Instance);

    public static IEnumerable<TestCaseData> Queues()
    {
        yield return new TestCaseData("BoundedQueue").SetArgDisplayNames("BoundedQueue");
        yield return new TestCaseData("HotSwap").SetArgDisplayNames("HotSwap");
        yield return new TestCaseData("DisruptorMulti").SetArgDisplayNames("Disruptor Multi");
        yield return new TestCaseData("DisruptorSingle").SetArgDisplayNames("Disruptor Single");
    }

    private static IQueueFactory Factory(string kind) => kind switch
    {
        "BoundedQueue" => BoundedQueueFactory.Instance,
        "HotSwap" => HotSwapQueueFactory.Instance,
        "DisruptorMulti" => DisruptorQueueFactory.Multi,
        _ => DisruptorQueueFactory.Single,
    };

    [TestCaseSource(nameof(Queues))]
    public void EveryFieldOfACapturedEvent_PassesThroughTheQueue(string kind)
    {
        CapturedEvent[] sources = { FullEvent("first"), FullEvent("second") };
        IEventQueue<CapturedEvent> queue = Factory(kind).Create<CapturedEvent>(8, grow: false);
        foreach (CapturedEvent source in sources)
        {
            Assert.That(queue.TryEnqueue(in source), Is.EqualTo(EnqueueResult.Enqueued));
        }

        var drained = new CapturedEvent[8];
        Assert.That(queue.Drain(drained), Is.EqualTo(2));
        for (int i = 0; i < sources.Length; i++)
        {
            AssertSameEvent(drained[i], sources[i]);
            Assert.That(drained[i].Message, Is.Null, "the slot keeps no reference to the caller's message string");
            Assert.That(drained[i].OwnedText, Is.Not.Null, "the message is held as text the slot owns");
        }
    }

    /// <summary>Async 14: a slot holds the message in storage it reuses, so after any number of laps the queue and
    /// the worker's batch hold no more text storage than their slots, and none of the callers' strings.</summary>
    [TestCaseSource(nameof(Queues))]
    public void SlotTextStorage_IsReusedLapAfterLap(string kind)
    {
        const int capacity = 8, batch = 4;
        IEventQueue<CapturedEvent> queue = Factory(kind).Create<CapturedEvent>(capacity, grow: false);
        var drained = new CapturedEvent[batch];
        var storage = new HashSet<(char[] Arena, int Offset)>(); // an array's equality is its identity
        for (int lap = 0; lap < 50; lap++)
        {
            for (int i = 0; i < batch; i++)
            {
                CapturedEvent item = Event("message " + lap + "." + i); // a new string per call
                Assert.That(queue.TryEnqueue(in item), Is.EqualTo(EnqueueResult.Enqueued));
            }

            Assert.That(queue.Drain(drained), Is.EqualTo(batch));
            for (int i = 0; i < batch; i++)
            {
                Assert.That(drained[i].MessageString, Is.EqualTo("message " + lap + "." + i));
                MessageText text = drained[i].OwnedText!.Value;
                storage.Add((text.Chars, text.Offset));
            }

            ItemCopy.ClearDelivered(drained, batch);
        }

        // HotSwap keeps two buffers of the capacity each.
        Assert.That(storage.Count, Is.LessThanOrEqualTo(2 * capacity + batch));
    }

    [TestCaseSource(nameof(Queues))]
    public void AMessageLongerThanTheSlotsStorage_StaysAString(string kind)
    {
        IEventQueue<CapturedEvent> queue = Factory(kind).Create<CapturedEvent>(8, grow: false);
        string longMessage = new string('x', MessageText.MaxLength + 1);
        CapturedEvent item = Event(longMessage);
        Assert.That(queue.TryEnqueue(in item), Is.EqualTo(EnqueueResult.Enqueued));
        var drained = new CapturedEvent[8];
        Assert.That(queue.Drain(drained), Is.EqualTo(1));
        Assert.That(drained[0].Message, Is.SameAs(longMessage));
        Assert.That(drained[0].OwnedText, Is.Null);
    }

    [TestCaseSource(nameof(Queues))]
    public void AFormatMessage_IsCopiedIntoTheSlot_AndTheThreadsBufferIsFreeForTheNextCall(string kind)
    {
        IEventQueue<CapturedEvent> queue = Factory(kind).Create<CapturedEvent>(8, grow: false);
        using var harness = new Log4netHarness("<log4net />");
        for (int i = 0; i < 3; i++)
        {
            var loggingEvent = new LoggingEvent(typeof(SlotCopyTests), harness.Repository, "App", Level.Info,
                new log4net.Util.SystemStringFormat(System.Globalization.CultureInfo.InvariantCulture, "order {0} at {1}", i, 1.5m * i), null);
            CapturedEvent item = CapturedEvent.CaptureForQueue(loggingEvent, CapturedEvent.SlotFlags);
            Assert.That(item.Formatted, Is.Not.Null, "formatted on the calling thread, without a string");
            Assert.That(queue.TryEnqueue(in item), Is.EqualTo(EnqueueResult.Enqueued));
        }

        var drained = new CapturedEvent[8];
        Assert.That(queue.Drain(drained), Is.EqualTo(3));
        Assert.That(drained.Take(3).Select(e => e.MessageString), Is.EqualTo(new[] { "order 0 at 0.0", "order 1 at 1.5", "order 2 at 3.0" }));
        Assert.That(drained.Take(3).Select(e => e.Formatted), Is.All.Null);
    }

    [Test]
    public void Copy_CopiesEveryField()
    {
        CapturedEvent source = FullEvent("m");
        CapturedEvent destination = default;
        ItemCopy.Copy(ref destination, in source);
        AssertSameEvent(destination, source);
    }

    private static CapturedEvent Event(string message) =>
        CapturedEvent.CaptureForQueue(new LoggingEvent(typeof(SlotCopyTests), null, "App", Level.Info, message, null), CapturedEvent.SlotFlags);

    // The message's three holders: a producer's item has a string or its thread's formatting buffer, a slot its text.
    private static readonly string[] MessageFields =
    {
        nameof(CapturedEvent.Message), nameof(CapturedEvent.TextChars), nameof(CapturedEvent.TextOffset), nameof(CapturedEvent.TextLength),
        nameof(CapturedEvent.Formatted),
    };

    /// <summary>An event whose capture fills every field, so a field the copy forgets reads as its default.</summary>
    private static CapturedEvent FullEvent(string message)
    {
        using var harness = new Log4netHarness("<log4net />");
        var loggingEvent = new LoggingEvent(typeof(SlotCopyTests), harness.Repository, "App.Orders", Level.Warn, message,
            new InvalidOperationException("boom"));
        loggingEvent.Properties["key"] = "value";
        CapturedEvent captured = CapturedEvent.Capture(loggingEvent, FixFlags.All, objects: true);
        foreach (FieldInfo field in Fields.Where(f => !MessageFields.Contains(f.Name)))
        {
            object? value = field.GetValue(captured);
            Assert.That(value, Is.Not.Null.And.Not.EqualTo(field.FieldType.IsValueType ? Activator.CreateInstance(field.FieldType) : null),
                $"{field.Name} is not filled by the capture");
        }

        Assert.That(captured.MessageString, Is.EqualTo(message));
        return captured;
    }

    private static void AssertSameEvent(CapturedEvent actual, CapturedEvent expected)
    {
        foreach (FieldInfo field in Fields.Where(f => !MessageFields.Contains(f.Name)))
        {
            object? want = field.GetValue(expected);
            object? got = field.GetValue(actual);
            Assert.That(field.FieldType.IsValueType ? Equals(got, want) : ReferenceEquals(got, want), Is.True, field.Name);
        }

        Assert.That(actual.MessageString, Is.EqualTo(expected.MessageString), "the message");
    }
}
