using System;
using System.IO;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Appender;

/// <summary>
/// Async 15: children behind an async appender see the original message and exception objects, as a synchronous
/// sibling does (telemetry appenders choose exception telemetry by <c>ExceptionObject</c>, JSON layouts serialize
/// <c>MessageObject</c>, <c>%exception{message}</c> and exception evaluators read the exception).
/// </summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class EventObjectsTests
{
    private readonly AsyncAppenderKind _kind;

    public EventObjectsTests(AsyncAppenderKind kind) => _kind = kind;

    [Test]
    public void AChildSeesTheSameMessageAndExceptionObjectsAsASynchronousSibling(
        [Values("Auto", "Message, ThreadName, Exception", "Partial", "All")] string fix)
    {
        using var harness = new Log4netHarness($@"<log4net>
            <appender name=""sync"" type=""LowLatencyLog.Tests.Support.RecordingAppender, LowLatencyLog.Tests"" />
            <appender name=""async"" type=""{_kind.TypeAttribute}"">
              <fix value=""{fix}"" />
              <appender-ref ref=""behind"" />
            </appender>
            <appender name=""behind"" type=""LowLatencyLog.Tests.Support.RecordingAppender, LowLatencyLog.Tests"" />
            <root><level value=""ALL"" /><appender-ref ref=""sync"" /><appender-ref ref=""async"" /></root>
          </log4net>");
        ILog log = harness.Logger("objects");
        var exception = new InvalidOperationException("boom");
        log.Info("a string");
        log.InfoFormat("order {0} filled", 42);
        log.Error("failed", exception);
        log.Warn(new Order(7));
        Assert.That(harness.Appender<AsyncForwardingAppender>("async").Flush(10_000), Is.True);

        var sync = harness.Appender<RecordingAppender>("sync").Events;
        var behind = harness.Appender<RecordingAppender>("behind").Events;
        Assert.That(behind, Has.Length.EqualTo(sync.Length));
        for (int i = 0; i < sync.Length; i++)
        {
            Assert.That(behind[i].ExceptionObject, Is.SameAs(sync[i].ExceptionObject), $"event {i}: the exception object");
            if (sync[i].MessageObject is string text)
            {
                Assert.That(behind[i].MessageObject, Is.EqualTo(text), $"event {i}: the message string");
            }
            else
            {
                Assert.That(behind[i].MessageObject, Is.SameAs(sync[i].MessageObject), $"event {i}: the message object");
            }

            Assert.That(behind[i].RenderedMessage, Is.EqualTo(sync[i].RenderedMessage), $"event {i}: the message text");
        }

        Assert.That(behind[2].ExceptionObject, Is.SameAs(exception));
    }

    [Test]
    public void ExceptionMessageConverter_WritesWhatLog4netWritesSynchronously()
    {
        using var harness = new Log4netHarness($@"<log4net>
            <appender name=""sync"" type=""log4net.Appender.FileAppender"">
              <file value=""{{dir}}sync.log"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message [%exception{{message}}]%newline"" /></layout>
            </appender>
            <appender name=""async"" type=""{_kind.TypeAttribute}"">
              <appender-ref ref=""file"" />
            </appender>
            <appender name=""file"" type=""log4net.Appender.FileAppender"">
              <file value=""{{dir}}async.log"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message [%exception{{message}}]%newline"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""sync"" /><appender-ref ref=""async"" /></root>
          </log4net>");
        ILog log = harness.Logger("objects");
        log.Error("failed", new InvalidOperationException("the reason"));
        log.Info("fine");
        harness.Shutdown();

        string expected = File.ReadAllText(harness.PathOf("sync.log"));
        Assert.That(expected, Does.Contain("[the reason]"));
        Assert.That(File.ReadAllText(harness.PathOf("async.log")), Is.EqualTo(expected));
    }

    [Test]
    public void AnExceptionEvaluatorBehindTheAsyncAppender_Triggers()
    {
        // A lossy buffer sends its events only when the evaluator triggers, which needs the exception object.
        using var harness = new Log4netHarness($@"<log4net>
            <appender name=""async"" type=""{_kind.TypeAttribute}"">
              <appender-ref ref=""buffer"" />
            </appender>
            <appender name=""buffer"" type=""log4net.Appender.BufferingForwardingAppender"">
              <bufferSize value=""100"" />
              <lossy value=""true"" />
              <evaluator type=""log4net.Core.ExceptionEvaluator"">
                <exceptionType value=""System.InvalidOperationException"" />
              </evaluator>
              <appender-ref ref=""sink"" />
            </appender>
            <appender name=""sink"" type=""LowLatencyLog.Tests.Support.RecordingAppender, LowLatencyLog.Tests"" />
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
          </log4net>");
        ILog log = harness.Logger("objects");
        log.Info("before 1");
        log.Info("before 2");
        log.Error("failed", new InvalidOperationException("boom"));
        Assert.That(harness.Appender<AsyncForwardingAppender>("async").Flush(10_000), Is.True);

        Assert.That(harness.Appender<RecordingAppender>("sink").Lines, Is.EqualTo(new[] { "before 1", "before 2", "failed" }));
    }

    private sealed class Order
    {
        private readonly int _id;

        public Order(int id) => _id = id;

        public override string ToString() => "order " + _id;
    }
}
