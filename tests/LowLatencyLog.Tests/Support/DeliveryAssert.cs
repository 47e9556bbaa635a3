using NUnit.Framework;

namespace LowLatencyLog.Tests.Support;

/// <summary>Assertions on what a sink received, shared by the queue and dispatcher suites.</summary>
internal static class DeliveryAssert
{
    /// <summary>Every producer's events arrived exactly once, in order, and intact.</summary>
    public static void AssertEveryProducerComplete(TestEvent[] events, int producers, int perProducer)
    {
        Assert.That(events.Length, Is.EqualTo(producers * perProducer));
        var next = new int[producers];
        foreach (var e in events)
        {
            if (!e.IsIntact)
            {
                Assert.Fail($"torn event {e}");
            }

            if (e.Sequence != next[e.Producer])
            {
                Assert.Fail($"producer {e.Producer}: expected {next[e.Producer]}, got {e.Sequence}");
            }

            next[e.Producer]++;
        }

        Assert.That(next, Has.All.EqualTo(perProducer));
    }
}
