using System;
using System.Linq;
using System.Threading.Tasks;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Appender;

/// <summary>
/// Async 20: a child (a disk, a network appender) that stalls for less than the buffer's worth of events never
/// delays the calling thread; the buffer sizing rule is the stall's length times the rate. The child here stalls for
/// as long as the test holds it, so "never delays" is shown as calls that all return while it is still stalled.
/// </summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class StalledChildTests : AsyncAppenderFixture
{
    private const int BufferSize = 1024;

    public StalledChildTests(AsyncAppenderKind kind)
        : base(kind)
    {
    }

    [Test]
    public void AStallShorterThanTheBuffer_NeverReachesTheCaller_AndEveryEventArrivesAfterIt()
    {
        (Log4netHarness harness, ILog log, RecordingAppender child) = StalledOnTheFirstEvent();

        // Less than the buffer's worth (the hot swap splits it between its two buffers, and the stalled batch holds one).
        int behindTheStall = BufferSize / 2 - 1;
        Task caller = Task.Run(() =>
        {
            for (int i = 0; i < behindTheStall; i++)
            {
                log.Info("e" + i);
            }
        });
        Assert.That(caller.Wait(TimeSpan.FromSeconds(60)), Is.True, "every call returned while the child was still stalled");
        Assert.That(child.Lines, Is.Empty.Or.EqualTo(new[] { "first" }), "nothing behind the stall was delivered yet");

        child.Open();
        Assert.That(Async(harness).Flush(30_000), Is.True);
        Assert.That(child.Lines, Is.EqualTo(new[] { "first" }.Concat(Enumerable.Range(0, behindTheStall).Select(i => "e" + i))));
        Assert.That(Async(harness).DiscardedCount, Is.Zero);
    }

    [Test]
    public void AStallLongerThanTheBuffer_MakesTheCallerWait_UnderBlock()
    {
        (Log4netHarness harness, ILog log, RecordingAppender child) = StalledOnTheFirstEvent();

        Task caller = Task.Run(() =>
        {
            for (int i = 0; i < 2 * BufferSize; i++)
            {
                log.Info("e" + i);
            }
        });
        Assert.That(caller.Wait(TimeSpan.FromMilliseconds(500)), Is.False, "more than the buffer's worth: the caller waits for room");

        child.Open();
        Assert.That(caller.Wait(TimeSpan.FromSeconds(60)), Is.True);
        Assert.That(Async(harness).Flush(30_000), Is.True);
        Assert.That(child.Lines.Length, Is.EqualTo(1 + 2 * BufferSize), "nothing lost under Block");
    }

    /// <summary>The async appender with a child that is stalled on the first event until the test opens it.</summary>
    private (Log4netHarness Harness, ILog Log, RecordingAppender Child) StalledOnTheFirstEvent()
    {
        var harness = Configure($@"<bufferSize value=""{BufferSize}"" />");
        ILog log = harness.Logger();
        RecordingAppender child = Child(harness);
        child.Hold();
        log.Info("first");
        Assert.That(child.Entered.Wait(Wait), Is.True, "the child is stalled on the first event");
        return (harness, log, child);
    }
}
