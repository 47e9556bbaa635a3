using System;
using System.Collections.Generic;
using log4net.Core;
using LowLatencyLog.Capture;
using LowLatencyLog.Forwarding;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Forwarding;

/// <summary>The children of an async appender, and the worker's sink that delivers to them.</summary>
public sealed class ChildAppendersTests
{
    [Test]
    public void AChange_ReplacesTheArrayAndLeavesAnEarlierSnapshotAsItWas()
    {
        var children = new ChildAppenders();
        var a = new RecordingAppender { Name = "a" };
        var b = new RecordingAppender { Name = "b" };

        Assert.That(children.Add(a), Is.True);
        Assert.That(children.Add(a), Is.False, "the same instance twice");
        var snapshot = children.Current;
        Assert.That(children.Add(b), Is.True);

        Assert.That(snapshot, Is.EqualTo(new[] { a }));
        Assert.That(children.Current, Is.EqualTo(new[] { a, b }));
        Assert.That(children.Get("b"), Is.SameAs(b));
        Assert.That(children.Get("c"), Is.Null);

        Assert.That(children.Remove(a), Is.True);
        Assert.That(children.Remove(a), Is.False);
        Assert.That(children.Current, Is.EqualTo(new[] { b }));
        Assert.That(children.RemoveAll(), Is.EqualTo(new[] { b }));
        Assert.That(children.Current, Is.Empty);
    }

    [Test]
    public void TheSink_DeliversToTheChildrenAttachedAtEachBatch_AndAThrowingChildStopsNoOther()
    {
        var children = new ChildAppenders();
        var throwing = new PlainAppender { Name = "throwing", ThrowWhen = e => e.RenderedMessage == "one" };
        var first = new RecordingAppender { Name = "first" };
        var reports = new List<string>();
        var sink = new ChildrenSink(children, typeof(ChildAppendersTests), () => "Async", (message, _) => reports.Add(message));
        children.Add(throwing);
        children.Add(first);

        sink.Deliver(Batch("one", "two"), 2);
        var second = new RecordingAppender { Name = "second" };
        children.Add(second);
        children.Remove(throwing);
        sink.Deliver(Batch("three"), 1);
        sink.Close();

        Assert.That(first.Events, Has.Length.EqualTo(3));
        Assert.That(second.Events, Has.Length.EqualTo(1));
        Assert.That(second.Events[0].RenderedMessage, Is.EqualTo("three"));
        Assert.That(throwing.Messages, Is.EqualTo(new[] { "two" }), "the event after the one that threw");
        Assert.That(throwing.Closed, Is.Zero, "detached before the sink closed the children");
        Assert.That(reports, Has.Count.EqualTo(1));
        Assert.That(reports[0], Does.StartWith("Appender [Async]: child appender [throwing] failed while appending"));
    }

    private static CapturedEvent[] Batch(params string[] messages)
    {
        var items = new CapturedEvent[messages.Length];
        for (int i = 0; i < messages.Length; i++)
        {
            var data = new LoggingEventData { LoggerName = "Tests", Level = Level.Info, Message = messages[i], TimeStampUtc = DateTime.UtcNow };
            items[i] = CapturedEvent.Capture(new LoggingEvent(data), FixFlags.All);
        }

        return items;
    }
}
