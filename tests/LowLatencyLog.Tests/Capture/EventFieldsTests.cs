using System;
using log4net.Appender;
using log4net.Core;
using log4net.Repository;
using LowLatencyLog.Capture;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>The reads the producer makes without the getters' caching answer what the getters answer.</summary>
public sealed class EventFieldsTests
{
    [Test]
    public void Domain_IsWhatTheGetterReturns_ForEveryKindOfEvent()
    {
        ILoggerRepository repository = log4net.LogManager.CreateRepository("event-fields-" + Guid.NewGuid().ToString("N"));
        LoggingEvent Logged() => new LoggingEvent(typeof(EventFieldsTests), repository, "logger", Level.Info, "message", null);

        LoggingEvent fresh = Logged();
        Assert.That(EventFields.Domain(fresh), Is.EqualTo(CapturedContext.ProcessDomain).And.EqualTo(fresh.Domain));

        LoggingEvent frozen = Logged();
        new MemoryAppender { Fix = FixFlags.None }.DoAppend(frozen); // frozen before anything read the domain
        Assert.That(EventFields.Domain(frozen), Is.Null.And.EqualTo(frozen.Domain));

        var remote = new LoggingEvent(new LoggingEventData { LoggerName = "remote", Domain = "RemoteDomain" });
        Assert.That(EventFields.Domain(remote), Is.EqualTo("RemoteDomain").And.EqualTo(remote.Domain));

        var noDomain = new LoggingEvent(new LoggingEventData { LoggerName = "remote" });
        Assert.That(EventFields.Domain(noDomain), Is.EqualTo(noDomain.Domain), "built from data with no domain: still updatable");
    }
}
