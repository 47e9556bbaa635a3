using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using log4net;
using log4net.Appender;
using log4net.Core;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Forwarding;

/// <summary>
/// SPEC 18 with a property value whose <c>ToString()</c> logs: log4net's <c>ForwardingAppender</c> over a
/// <c>FileAppender</c> renders it on the calling thread inside the forwarding appender's guard, so a call it makes into
/// the same appender is dropped and one into another appender is written. The same calls through our async appenders
/// write the same bytes, from the thread context and from the global context (where a value rendered on the worker fed
/// itself), also when the repository shuts down right after the calls (where the worker, logging while log4net held its
/// locks for the shutdown, stalled the close and lost events).
/// </summary>
[NonParallelizable] // the global context is process-wide
public sealed class PropertyValueThatLogsTests
{
    private const string Key = "lll-logging-value";
    private const string Layout = "%level %logger %message [%property{" + Key + "}]%newline";

    /// <summary>How many times the value logs at most, so that a feedback loop ends in the test process.</summary>
    private const int Cap = 50;

    public enum Context
    {
        Thread,
        Global,
    }

    public static IEnumerable<TestCaseData> Cases()
    {
        foreach (string type in AsyncAppenderKind.TypeNames)
        {
            foreach (Context context in new[] { Context.Thread, Context.Global })
            {
                foreach (bool rightAfter in new[] { false, true })
                {
                    yield return new TestCaseData(type, context, rightAfter)
                        .SetArgDisplayNames(type, context.ToString(), rightAfter ? "shutdown right after" : "flushed first");
                }
            }
        }
    }

    [TestCaseSource(nameof(Cases))]
    public void ValueThatLogs_FilesAsLog4netWritesThem(string type, Context context, bool shutdownRightAfter)
    {
        using var theirs = new Log4netHarness(Config("log4net.Appender.ForwardingAppender", settings: ""));
        using var ours = new Log4netHarness(Config($"LowLatencyLog.Appender.{type}, LowLatencyLog", @"<shutdownTimeout value=""2000"" />"));

        int theirCalls = Run(theirs, context, flushFirst: null);
        AsyncForwardingAppender async = ours.Appender<AsyncForwardingAppender>("async");
        AsyncForwardingAppender otherAsync = ours.Appender<AsyncForwardingAppender>("other-async");
        int ourCalls = Run(ours, context, flushFirst: shutdownRightAfter ? null : async);

        string expected = File.ReadAllText(theirs.PathOf("out.log"));
        Assert.That(expected, Is.EqualTo(Lines("INFO app one [value]", "INFO app two [value]", "INFO app three [value]")), "log4net's own file, as a sanity check");
        Assert.That(File.ReadAllText(theirs.PathOf("other.log")), Is.EqualTo(Lines("INFO other other nested [value]", "INFO other other nested [value]", "INFO other other nested [value]")), "log4net's own file, as a sanity check");
        Assert.That(theirCalls, Is.EqualTo(6), "log4net renders the value once per event it writes");

        Assert.That(File.ReadAllText(ours.PathOf("out.log")), Is.EqualTo(expected));
        Assert.That(File.ReadAllText(ours.PathOf("other.log")), Is.EqualTo(File.ReadAllText(theirs.PathOf("other.log"))));
        Assert.That(ourCalls, Is.EqualTo(theirCalls), "the value is rendered as often as log4net renders it");
        Assert.That(async.ReentrantCount, Is.EqualTo(6), "each call into [async] made while it took an event, counted");
        Assert.That(otherAsync.ReentrantCount, Is.EqualTo(3), "each call into [other-async] made while it took an event, counted");
        Assert.That(async.UndeliveredCount + otherAsync.UndeliveredCount, Is.Zero, "nothing lost at the shutdown");
        Assert.That(ours.InternalErrors, Has.None.Contains("timed out"), "the close did not wait for the worker");
    }

    /// <summary>
    /// A child whose type the appender does not know may read a property as an object, so values reach it as they are and
    /// are rendered on the worker: a call the value makes into the same async appender there is dropped, as log4net's
    /// forwarding appender drops it, instead of being queued and rendered again for good.
    /// </summary>
    [TestCaseSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.TypeNames))]
    public void GlobalValueThatLogs_RenderedOnTheWorkerByAnUnknownChild_IsDroppedThereAsLog4netDropsIt(string type)
    {
        string Xml(string forwarding) => $@"<log4net>
            <appender name=""async"" type=""{forwarding}""><appender-ref ref=""text"" /></appender>
            <appender name=""text"" type=""{typeof(TextAppender).AssemblyQualifiedName}"">
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{Layout}"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
          </log4net>";
        using var theirs = new Log4netHarness(Xml("log4net.Appender.ForwardingAppender"));
        using var ours = new Log4netHarness(Xml($"LowLatencyLog.Appender.{type}, LowLatencyLog"));

        var theirValue = new LoggingValue(theirs.Logger("app"), other: null);
        var ourValue = new LoggingValue(ours.Logger("app"), other: null);
        try
        {
            GlobalContext.Properties[Key] = theirValue;
            LogThree(theirs);
            GlobalContext.Properties[Key] = ourValue;
            LogThree(ours);
            AsyncForwardingAppender async = ours.Appender<AsyncForwardingAppender>("async");
            Assert.That(async.Flush(30_000), Is.True);
            TextAppender theirText = theirs.Appender<TextAppender>("text");
            TextAppender ourText = ours.Appender<TextAppender>("text");
            theirs.Shutdown();
            ours.Shutdown();

            string expected = theirText.Text;
            Assert.That(expected, Is.EqualTo(Lines("INFO app one [value]", "INFO app two [value]", "INFO app three [value]")), "log4net's own output, as a sanity check");
            Assert.That(ourText.Text, Is.EqualTo(expected));
            Assert.That(ourValue.Calls, Is.EqualTo(theirValue.Calls), "the value is rendered as often as log4net renders it");
            Assert.That(async.ReentrantCount, Is.EqualTo(3), "each call the value made on the worker, counted");
        }
        finally
        {
            GlobalContext.Properties.Remove(Key);
        }
    }

    /// <returns>How many times the value was rendered.</returns>
    private static int Run(Log4netHarness harness, Context context, AsyncForwardingAppender? flushFirst)
    {
        var value = new LoggingValue(harness.Logger("app"), harness.Logger("other"));
        try
        {
            if (context == Context.Thread)
            {
                ThreadContext.Properties[Key] = value;
            }
            else
            {
                GlobalContext.Properties[Key] = value;
            }

            LogThree(harness);
            if (flushFirst != null)
            {
                Assert.That(flushFirst.Flush(30_000), Is.True);
            }

            harness.Shutdown();
            return value.Calls;
        }
        finally
        {
            ThreadContext.Properties.Remove(Key);
            GlobalContext.Properties.Remove(Key);
        }
    }

    private static void LogThree(Log4netHarness harness)
    {
        ILog log = harness.Logger("app");
        log.Info("one");
        log.Info("two");
        log.Info("three");
    }

    private static string Lines(params string[] lines) => string.Concat(lines.Select(l => l + System.Environment.NewLine));

    private static string Config(string forwardingType, string settings)
    {
        string File(string name, string file) => $@"
            <appender name=""{name}"" type=""log4net.Appender.FileAppender"">
              <file value=""{{dir}}{file}"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{Layout}"" /></layout>
            </appender>";
        return $@"<log4net>
            <appender name=""async"" type=""{forwardingType}""><appender-ref ref=""out"" />{settings}</appender>
            <appender name=""other-async"" type=""{forwardingType}""><appender-ref ref=""other"" />{settings}</appender>
            {File("out", "out.log")}
            {File("other", "other.log")}
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
            <logger name=""other"" additivity=""false""><appender-ref ref=""other-async"" /></logger>
          </log4net>";
    }

    /// <summary>A property value that logs whenever it is rendered (a lazy value that traces its own evaluation), into
    /// the logger of the events it is a property of and, if given, into another one.</summary>
    private sealed class LoggingValue
    {
        private readonly ILog _same;
        private readonly ILog? _other;
        private int _calls;

        public LoggingValue(ILog same, ILog? other)
        {
            _same = same;
            _other = other;
        }

        public int Calls => Volatile.Read(ref _calls);

        public override string ToString()
        {
            if (Interlocked.Increment(ref _calls) <= Cap)
            {
                _same.Info("nested");
                _other?.Info("other nested");
            }

            return "value";
        }
    }

    /// <summary>A child of a type the async appender does not know: it keeps the text its layout writes.</summary>
    public sealed class TextAppender : AppenderSkeleton
    {
        private readonly StringBuilder _text = new StringBuilder();

        public string Text
        {
            get
            {
                lock (_text)
                {
                    return _text.ToString();
                }
            }
        }

        protected override void Append(LoggingEvent loggingEvent)
        {
            string rendered = RenderLoggingEvent(loggingEvent);
            lock (_text)
            {
                _text.Append(rendered);
            }
        }
    }
}
