using System;
using System.Collections.Generic;
using System.Linq;
using log4net.Core;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Forwarding;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Forwarding;

/// <summary>The events held before activation on their own: the limit, the order they are moved in, and the counts
/// a move, a give-up and a close leave.</summary>
public sealed class EarlyEventsTests
{
    private readonly object _lifecycle = new object();

    [Test]
    public void Hold_KeepsUpToTheLimit_ThenCountsDropped()
    {
        var early = new EarlyEvents(_lifecycle);
        lock (_lifecycle)
        {
            CapturedEvent captured = Event("x");
            for (int i = 0; i < EarlyEvents.Limit + 3; i++)
            {
                early.Hold(captured);
            }

            early.CountDropped();

            Assert.That(early.Count, Is.EqualTo(EarlyEvents.Limit));
            Assert.That(early.Dropped, Is.EqualTo(4));
            Assert.That(early.AllDelivered, Is.False);
        }
    }

    [Test]
    public void MoveInto_MovesOldestFirstWhileThereIsRoom_AndCountsProgress()
    {
        var early = new EarlyEvents(_lifecycle);
        var sink = new MessageSink();
        var dispatcher = new AsyncDispatcher<CapturedEvent>("early", BoundedQueueFactory.Instance, 4, sink, OverflowAction.Block, 16, WaitStrategyKind.Blocking);
        lock (_lifecycle)
        {
            for (int i = 0; i < 6; i++)
            {
                early.Hold(Event("e" + i));
            }

            Assert.That(early.MoveInto(dispatcher), Is.True, "the worker has not started: four fit");
            Assert.That(early.Count, Is.EqualTo(2));
            Assert.That(early.Moves, Is.EqualTo(1));
            Assert.That(early.MoveInto(dispatcher), Is.False, "no room now");
            Assert.That(early.Moves, Is.EqualTo(1));
        }

        dispatcher.Start();
        Queue<CapturedEvent> left;
        lock (_lifecycle)
        {
            left = early.Detach()!;
            Assert.That(early.IsOpen, Is.False);
            Assert.That(early.Detach(), Is.Null, "detached once");
        }

        Assert.That(EarlyEvents.MoveLeftover(dispatcher, left, 10_000), Is.EqualTo(0), "the worker drains: the rest fits");
        Assert.That(dispatcher.Close(10_000), Is.True);
        Assert.That(sink.Messages, Is.EqualTo(Enumerable.Range(0, 6).Select(i => "e" + i)));
        Assert.That(dispatcher.UndeliveredCount, Is.EqualTo(0));
    }

    [Test]
    public void GiveUp_CountsTheHeldEventsAsUndeliveredByTheDispatcher_AndHandDroppedToAddsTheDrops()
    {
        var early = new EarlyEvents(_lifecycle);
        var dispatcher = new AsyncDispatcher<CapturedEvent>("early", BoundedQueueFactory.Instance, 4, new MessageSink(), OverflowAction.Block, 16, WaitStrategyKind.Blocking);
        lock (_lifecycle)
        {
            early.Hold(Event("a"));
            early.Hold(Event("b"));
            early.CountDropped();

            Assert.That(early.GiveUp(dispatcher), Is.EqualTo(2));
            early.HandDroppedTo(dispatcher);

            Assert.That(early.Count, Is.EqualTo(0));
            Assert.That(early.Dropped, Is.EqualTo(0), "handed over once");
        }

        Assert.That(dispatcher.UndeliveredCount, Is.EqualTo(2));
        Assert.That(dispatcher.DiscardedCount, Is.EqualTo(1));
    }

    [Test]
    public void MoveLeftover_WithoutRoom_CountsWhatDidNotFitAsUndelivered()
    {
        var dispatcher = new AsyncDispatcher<CapturedEvent>("early", BoundedQueueFactory.Instance, 2, new MessageSink(), OverflowAction.Block, 16, WaitStrategyKind.Blocking);
        var held = new Queue<CapturedEvent>(new[] { Event("a"), Event("b"), Event("c") });

        Assert.That(EarlyEvents.MoveLeftover(dispatcher, held, 0), Is.EqualTo(1), "no worker: two fit");
        Assert.That(dispatcher.UndeliveredCount, Is.EqualTo(1));
    }

    [Test]
    public void CountUndelivered_IsReadWithoutTheLock_AndAllDeliveredSeesIt()
    {
        var early = new EarlyEvents(_lifecycle);
        early.CountUndelivered(3);

        Assert.That(early.Undelivered, Is.EqualTo(3));
        lock (_lifecycle)
        {
            Assert.That(early.Count, Is.EqualTo(0));
            Assert.That(early.AllDelivered, Is.False);
        }
    }

    private static CapturedEvent Event(string message) =>
        CapturedEvent.Capture(new LoggingEvent(typeof(EarlyEventsTests), null, "early", Level.Info, message, null), FixResolver.Always);

    private sealed class MessageSink : IBatchSink<CapturedEvent>
    {
        private readonly List<string> _messages = new List<string>();

        public string[] Messages
        {
            get
            {
                lock (_messages)
                {
                    return _messages.ToArray();
                }
            }
        }

        public void Deliver(CapturedEvent[] items, int count)
        {
            lock (_messages)
            {
                for (int i = 0; i < count; i++)
                {
                    _messages.Add(items[i].MessageString!);
                }
            }
        }

        public bool Flush(int timeoutMilliseconds) => true;

        public void ReportDiscarded(long discardedSinceLastReport, long totalDiscarded)
        {
        }

        public void Close()
        {
        }

        public void ReportError(string message, Exception? exception)
        {
        }
    }
}
