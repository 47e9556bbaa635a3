using System;
using System.Linq;
using log4net.Appender;
using log4net.Core;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Appender;

/// <summary>
/// Guards for behaviours (docs/behaviours.md) that the contract suites did not catch when the behaviour was broken on
/// purpose.
/// </summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class BehaviourGuardTests : AsyncAppenderFixture
{
    public BehaviourGuardTests(AsyncAppenderKind kind)
        : base(kind)
    {
    }

    // Async 6: a bulk child (not an AppenderSkeleton, so nothing inside it catches) that throws out of
    // DoAppend(LoggingEvent[]) must not cost the children after it any event of the batch.
    [Test]
    public void ThrowingBulkChildFirst_LaterChildrenStillGetEveryBatch_ErrorHandlerSawIt()
    {
        var harness = Configure(
            appenders: @"<appender name=""bad"" type=""LowLatencyLog.Tests.Appender.ThrowingBulkAppender, LowLatencyLog.Tests"" />" + RecordingChild("good"),
            refs: @"<appender-ref ref=""bad"" /><appender-ref ref=""good"" />");
        RecordingAppender good = Child(harness, "good");
        AsyncForwardingAppender async = Async(harness);
        var errors = new RecordingErrorHandler();
        async.ErrorHandler = errors;

        for (int i = 0; i < 40; i++)
        {
            harness.Logger().Info("e" + i);
        }

        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(good.Lines, Is.EqualTo(Enumerable.Range(0, 40).Select(i => "e" + i)));
        Assert.That(errors.Errors, Is.Not.Empty);
        Assert.That(errors.Errors, Is.All.Contains("[bad]").And.Contains("bulk child failure"));

        harness.Logger().Info("later");
        Assert.That(good.WaitForCount(41), Is.True);
    }
}

/// <summary>An <see cref="IBulkAppender"/> that throws out of every append, with no <see cref="AppenderSkeleton"/>
/// around it to catch.</summary>
public sealed class ThrowingBulkAppender : IAppender, IBulkAppender
{
    public string Name { get; set; } = string.Empty;

    public void Close()
    {
    }

    public void DoAppend(LoggingEvent loggingEvent) => throw new InvalidOperationException("bulk child failure");

    public void DoAppend(LoggingEvent[] loggingEvents) => throw new InvalidOperationException("bulk child failure");
}
