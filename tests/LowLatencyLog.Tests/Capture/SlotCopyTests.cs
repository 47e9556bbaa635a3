using System;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using log4net.Core;
using LowLatencyLog.Capture;
using LowLatencyLog.Core;
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

    [TestCaseSource(nameof(Queues))]
    public void EveryFieldOfACapturedEvent_PassesThroughTheQueue(string kind)
    {
        IQueueFactory factory = kind switch
        {
            "BoundedQueue" => BoundedQueueFactory.Instance,
            "HotSwap" => HotSwapQueueFactory.Instance,
            "DisruptorMulti" => DisruptorQueueFactory.Multi,
            _ => DisruptorQueueFactory.Single,
        };
        CapturedEvent[] sources = { FullEvent("first"), FullEvent("second") };
        IEventQueue<CapturedEvent> queue = factory.Create<CapturedEvent>(8, grow: false);
        foreach (CapturedEvent source in sources)
        {
            Assert.That(queue.TryEnqueue(in source), Is.EqualTo(EnqueueResult.Enqueued));
        }

        var drained = new CapturedEvent[8];
        Assert.That(queue.Drain(drained), Is.EqualTo(2));
        for (int i = 0; i < sources.Length; i++)
        {
            AssertSameFields(drained[i], sources[i]);
        }
    }

    [Test]
    public void Copy_CopiesEveryField()
    {
        CapturedEvent source = FullEvent("m");
        CapturedEvent destination = default;
        ItemCopy.Copy(ref destination, in source);
        AssertSameFields(destination, source);
    }

    /// <summary>An event whose capture fills every field, so a field the copy forgets reads as its default.</summary>
    private static CapturedEvent FullEvent(string message)
    {
        using var harness = new Log4netHarness("<log4net />");
        var loggingEvent = new LoggingEvent(typeof(SlotCopyTests), harness.Repository, "App.Orders", Level.Warn, message,
            new InvalidOperationException("boom"));
        loggingEvent.Properties["key"] = "value";
        CapturedEvent captured = CapturedEvent.Capture(loggingEvent, FixFlags.All);
        foreach (FieldInfo field in Fields)
        {
            object? value = field.GetValue(captured);
            Assert.That(value, Is.Not.Null.And.Not.EqualTo(field.FieldType.IsValueType ? Activator.CreateInstance(field.FieldType) : null),
                $"{field.Name} is not filled by the capture");
        }

        return captured;
    }

    private static void AssertSameFields(CapturedEvent actual, CapturedEvent expected)
    {
        foreach (FieldInfo field in Fields)
        {
            object? want = field.GetValue(expected);
            object? got = field.GetValue(actual);
            Assert.That(field.FieldType.IsValueType ? Equals(got, want) : ReferenceEquals(got, want), Is.True, field.Name);
        }
    }
}
