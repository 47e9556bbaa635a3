using LowLatencyLog.Engine;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine;

/// <summary>
/// The worker's pause after a small batch: when it pauses, how it grows while a producer keeps publishing faster than
/// the worker takes events, and that it falls back to the shortest as soon as the producers are slower than a pause.
/// </summary>
public sealed class BatchPauseTests
{
    [Test]
    public void PausesOnlyAfterASmallNonEmptyBatch()
    {
        var pause = new BatchPause(65536);

        Assert.That(pause.AfterDrain(0), Is.False, "nothing taken: the wait strategy's business, not a pause");
        Assert.That(pause.AfterDrain(1), Is.True);
        Assert.That(pause.AfterDrain(BatchPause.TargetBatch - 1), Is.True);
        Assert.That(pause.AfterDrain(BatchPause.TargetBatch), Is.False, "a batch of the target size needs no pause");
        Assert.That(pause.Iterations, Is.EqualTo(BatchPause.ShortestIterations), "no pause happened, so nothing grew");
    }

    [Test]
    public void GrowsWhileTheBatchAfterAPauseIsStillSmall_UpToTheLongest()
    {
        var pause = new BatchPause(65536);
        int expected = BatchPause.ShortestIterations;
        for (int i = 0; i < 10; i++)
        {
            Assert.That(pause.AfterDrain(3), Is.True);
            pause.Pause();
            expected = System.Math.Min(expected * 2, BatchPause.LongestIterations);
            Assert.That(pause.AfterDrain(3), Is.True);
            Assert.That(pause.Iterations, Is.EqualTo(expected), $"after pause {i + 1}");
        }

        Assert.That(pause.Iterations, Is.EqualTo(BatchPause.LongestIterations));
    }

    [Test]
    public void KeepsItsLengthWhileItsBatchesReachTheTarget()
    {
        var pause = new BatchPause(65536);
        pause.AfterDrain(3);
        pause.Pause();
        pause.AfterDrain(3); // grew once
        pause.Pause();

        Assert.That(pause.AfterDrain(BatchPause.TargetBatch), Is.False);
        Assert.That(pause.Iterations, Is.EqualTo(BatchPause.ShortestIterations * 2));
    }

    [Test]
    public void FallsBackToTheShortestWhenAPauseEndsWithNothingToTake()
    {
        var pause = new BatchPause(65536);
        for (int i = 0; i < 4; i++)
        {
            pause.AfterDrain(1);
            pause.Pause();
        }

        pause.AfterDrain(1);
        Assert.That(pause.Iterations, Is.GreaterThan(BatchPause.ShortestIterations));
        pause.Pause();

        Assert.That(pause.AfterDrain(0), Is.False);
        Assert.That(pause.Iterations, Is.EqualTo(BatchPause.ShortestIterations), "a producer slower than the pause");
    }

    [TestCase(16, 4)]
    [TestCase(8, 2)]
    [TestCase(1024, BatchPause.TargetBatch)]
    public void ASmallQueue_AimsForAQuarterOfItsCapacity(int capacity, int smallBelow)
    {
        var pause = new BatchPause(capacity);

        Assert.That(pause.AfterDrain(smallBelow - 1), Is.True);
        Assert.That(pause.AfterDrain(smallBelow), Is.False, "a batch of a quarter of the queue is not small");
    }

    [TestCase(7)]
    [TestCase(1)]
    public void AQueueOfFewerThanEightEvents_NeverPauses(int capacity)
    {
        var pause = new BatchPause(capacity);

        Assert.That(pause.AfterDrain(1), Is.False, "producers would wait for room during the pause");
    }
}
