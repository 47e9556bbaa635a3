using log4net.Core;
using log4net.Filter;
using LowLatencyLog.Forwarding;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Forwarding;

/// <summary>What a producer checks before it captures anything: the threshold, then the filter chain as log4net runs it.</summary>
public sealed class FilterAndThresholdTests
{
    [Test]
    public void TheThreshold_RejectsLessSevereEventsAndEventsWithoutALevel()
    {
        var admission = new FilterAndThreshold(Level.Warn, null, null);

        Assert.That(admission.Admits(Event(Level.Info, "a")), Is.False);
        Assert.That(admission.Admits(Event(Level.Warn, "a")), Is.True);
        Assert.That(admission.Admits(Event(Level.Error, "a")), Is.True);
        Assert.That(admission.Admits(Event(null, "a")), Is.False);
        Assert.That(FilterAndThreshold.Empty.Admits(Event(null, "a")), Is.True);
    }

    [Test]
    public void TheChain_StopsAtTheFirstAcceptOrDeny_AndANeutralEndAdmits()
    {
        var acceptOrders = new StringMatchFilter { StringToMatch = "order", AcceptOnMatch = true };
        var denyDebug = new LevelMatchFilter { LevelToMatch = Level.Debug, AcceptOnMatch = false };
        acceptOrders.ActivateOptions();
        denyDebug.ActivateOptions();
        acceptOrders.Next = denyDebug;
        var admission = new FilterAndThreshold(null, acceptOrders, denyDebug);

        Assert.That(admission.Admits(Event(Level.Debug, "an order")), Is.True, "accepted before the deny");
        Assert.That(admission.Admits(Event(Level.Debug, "a quote")), Is.False);
        Assert.That(admission.Admits(Event(Level.Info, "a quote")), Is.True, "neutral to the end");
    }

    private static LoggingEvent Event(Level? level, string message) =>
        new LoggingEvent(new LoggingEventData { LoggerName = "Tests", Level = level, Message = message });
}
