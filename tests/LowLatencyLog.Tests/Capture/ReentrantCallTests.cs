using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using log4net;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// SPEC 18: a log call made on the same thread while an appender takes an event (an argument's <c>ToString()</c>, an
/// <c>IFormattable</c>, an exception's text) leaves the outer event as log4net's own <c>FileAppender</c> writes it; a
/// call into the same appender is dropped (and counted), a call into another one is taken. The same calls run through
/// a repository of log4net's own appenders and through one of ours, and the files are compared byte for byte.
/// </summary>
public sealed class ReentrantCallTests
{
    private const string Layout = "%level %message %property{active}%newline%exception";

    /// <summary>How deep a self-logging argument goes at most if nothing stops it (a bound for the test process).</summary>
    private const int DepthLimit = 40;

    public static IEnumerable<TestCaseData> Ours()
    {
        foreach (string type in AsyncAppenderKind.TypeNames)
        {
            yield return new TestCaseData(type).SetArgDisplayNames(type);
        }

        yield return new TestCaseData(nameof(BufferedFileAppender)).SetArgDisplayNames(nameof(BufferedFileAppender) + " alone");
        yield return new TestCaseData(nameof(RollingBufferedFileAppender)).SetArgDisplayNames(nameof(RollingBufferedFileAppender) + " alone");
    }

    [TestCaseSource(nameof(Ours))]
    public void NestedCalls_FilesAsLog4netWritesThem_SameAppenderDropped(string ours)
    {
        using var theirs = new Log4netHarness(Config(fileType: "log4net.Appender.FileAppender", asyncType: null));
        bool async = ours.EndsWith("AsyncAppender", StringComparison.Ordinal);
        using var ourRepo = new Log4netHarness(Config($"LowLatencyLog.Appender.{(async ? nameof(BufferedFileAppender) : ours)}, LowLatencyLog", async ? ours : null));

        int theirDepth = Run(theirs);
        int ourDepth = Run(ourRepo);

        long reentrant = async ? ourRepo.Appender<AsyncForwardingAppender>("async").ReentrantCount : -1;
        theirs.Shutdown();
        ourRepo.Shutdown();

        Assert.That(theirDepth, Is.EqualTo(1), "log4net formats the self-logging argument once");
        Assert.That(ourDepth, Is.EqualTo(1), "the self-logging argument is formatted once: the nested call into the same appender is dropped");
        string expected = File.ReadAllText(theirs.PathOf("out.log"));
        Assert.That(expected, Does.Contain("INFO outer N end").And.Contain("INFO self S end").And.Contain("INFO rendered R"), "log4net's own file, as a sanity check");
        Assert.That(File.ReadAllText(ourRepo.PathOf("out.log")), Is.EqualTo(expected));
        string nested = File.ReadAllText(theirs.PathOf("other.log"));
        Assert.That(nested, Does.Contain("inner 1 for N").And.Contain("exception text 2").And.Contain("formatting F1").And.Contain("active 1").And.Contain("renderer 3"), "every nested call logged, in log4net's own file");
        Assert.That(File.ReadAllText(ourRepo.PathOf("other.log")), Is.EqualTo(nested));
        if (async)
        {
            Assert.That(reentrant, Is.EqualTo(1), "the self-logging call, counted");
        }
    }

    /// <summary>Calls nested through more async appenders than a thread's guard first has room for (four): each is
    /// taken, a call into the outermost from the innermost is dropped, and once they return every appender takes the
    /// thread's next calls.</summary>
    [Test]
    public void CallsNestedThroughSixAppenders_EachTaken_TheOutermostDropsTheInnermostsCall()
    {
        const int Chain = 6;
        var xml = new System.Text.StringBuilder("<log4net>");
        for (int i = 0; i < Chain; i++)
        {
            xml.Append($@"<appender name=""a{i}"" type=""LowLatencyLog.Appender.BoundedQueueAsyncAppender, LowLatencyLog""><appender-ref ref=""r{i}"" /></appender>
                <appender name=""r{i}"" type=""{typeof(RecordingAppender).AssemblyQualifiedName}"" />
                <logger name=""l{i}"" additivity=""false""><appender-ref ref=""a{i}"" /></logger>");
        }

        using var harness = new Log4netHarness(xml.Append("</log4net>").ToString());
        var logs = new ILog[Chain];
        for (int i = 0; i < Chain; i++)
        {
            logs[i] = harness.Logger($"l{i}");
        }

        logs[0].InfoFormat("link {0}", new Link(logs, 1));
        logs[0].InfoFormat("link {0}", new Link(logs, 1));

        for (int i = 0; i < Chain; i++)
        {
            var async = harness.Appender<AsyncForwardingAppender>($"a{i}");
            Assert.That(async.Flush(20_000), Is.True);
            Assert.That(harness.Appender<RecordingAppender>($"r{i}").Lines, Has.Length.EqualTo(2), $"a{i}: both calls taken");
            Assert.That(async.ReentrantCount, Is.EqualTo(i == 0 ? 2 : 0), $"a{i}: calls dropped as re-entrant");
        }
    }

    /// <summary>An argument whose <c>ToString()</c> logs through the next logger of a chain, and from its end back
    /// into the first.</summary>
    private sealed class Link
    {
        private readonly ILog[] _logs;
        private readonly int _index;

        public Link(ILog[] logs, int index)
        {
            _logs = logs;
            _index = index;
        }

        public override string ToString()
        {
            if (_index < _logs.Length)
            {
                _logs[_index].InfoFormat("link {0}", new Link(_logs, _index + 1));
            }
            else
            {
                _logs[0].Info("back to the first");
            }

            return _index.ToString(CultureInfo.InvariantCulture);
        }
    }

    /// <returns>How deep the self-logging argument went.</returns>
    private static int Run(Log4netHarness harness)
    {
        ILog log = harness.Logger("app");
        ILog other = harness.Logger("other");
        log.InfoFormat("outer {0} end", new Noisy(other, "N"));
        var self = new SelfLogging(log);
        log.InfoFormat("self {0} end", self);
        log.Logger.Log(typeof(ReentrantCallTests), Level.Error, new SystemStringFormat(CultureInfo.InvariantCulture, "with exception {0} end", new object[] { 7 }), new NoisyException(other));
        log.InfoFormat(CultureInfo.InvariantCulture, "formattable {0:F1} end", new NoisyFormattable(other));
        log.InfoFormat("two {0} and {1} end", new Noisy(other, "A"), new Noisy(other, "B"));
        ThreadContext.Properties["active"] = new ActiveValue(other);
        log.InfoFormat("with property {0} end", new Noisy(other, "P"));
        ThreadContext.Properties.Remove("active");
        LoggingRenderer.Other = other;
        log.Info(new RenderedByARendererThatLogs("R"));
        LoggingRenderer.Other = null;
        log.Info("plain after");
        return self.Deepest;
    }

    private static string Config(string fileType, string? asyncType)
    {
        string asyncs = asyncType == null ? "" : $@"
            <appender name=""async"" type=""LowLatencyLog.Appender.{asyncType}, LowLatencyLog""><appender-ref ref=""out"" /></appender>
            <appender name=""other-async"" type=""LowLatencyLog.Appender.{asyncType}, LowLatencyLog""><appender-ref ref=""other"" /></appender>";
        return $@"<log4net>
            <renderer renderingClass=""{typeof(LoggingRenderer).AssemblyQualifiedName}"" renderedClass=""{typeof(RenderedByARendererThatLogs).AssemblyQualifiedName}"" />
            {asyncs}
            <appender name=""out"" type=""{fileType}"">
              <file value=""{{dir}}out.log"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{Layout}"" /></layout>
            </appender>
            <appender name=""other"" type=""{fileType}"">
              <file value=""{{dir}}other.log"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{Layout}"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""{(asyncType == null ? "out" : "async")}"" /></root>
            <logger name=""other"" additivity=""false""><appender-ref ref=""{(asyncType == null ? "other" : "other-async")}"" /></logger>
          </log4net>";
    }

    /// <summary>An argument whose <c>ToString()</c> logs through another logger (an ORM proxy that logs its SQL).</summary>
    private sealed class Noisy
    {
        private readonly ILog _log;
        private readonly string _text;

        public Noisy(ILog log, string text)
        {
            _log = log;
            _text = text;
        }

        public override string ToString()
        {
            _log.InfoFormat("inner {0} for {1}", 1, _text);
            return _text;
        }
    }

    /// <summary>An argument whose <c>ToString()</c> logs itself through the same logger, bounded for this process.</summary>
    private sealed class SelfLogging
    {
        private readonly ILog _log;
        private int _depth;

        public SelfLogging(ILog log) => _log = log;

        public int Deepest { get; private set; }

        public override string ToString()
        {
            _depth++;
            Deepest = Math.Max(Deepest, _depth);
            if (_depth < DepthLimit)
            {
                _log.InfoFormat("nested {0}", this);
            }

            _depth--;
            return "S";
        }
    }

    public sealed class RenderedByARendererThatLogs
    {
        public RenderedByARendererThatLogs(string text) => Text = text;

        public string Text { get; }
    }

    /// <summary>A renderer that logs through another logger while it renders (log4net creates it from the config).</summary>
    public sealed class LoggingRenderer : log4net.ObjectRenderer.IObjectRenderer
    {
        /// <summary>The logger it logs through: the repository under test's, on the thread that runs it.</summary>
        [ThreadStatic]
        public static ILog? Other;

        public void RenderObject(log4net.ObjectRenderer.RendererMap rendererMap, object obj, TextWriter writer)
        {
            Other?.InfoFormat("renderer {0}", 3);
            writer.Write("rendered " + ((RenderedByARendererThatLogs)obj).Text);
        }
    }

    /// <summary>A property value that logs when it is fixed (captured) or rendered: log4net's own appenders render it,
    /// an async appender fixes it on the calling thread.</summary>
    private sealed class ActiveValue : IFixingRequired
    {
        private readonly ILog _log;

        public ActiveValue(ILog log) => _log = log;

        public object GetFixedObject()
        {
            _log.InfoFormat("active {0}", 1);
            return "fixed";
        }

        public override string ToString()
        {
            _log.InfoFormat("active {0}", 1);
            return "fixed";
        }
    }

    private sealed class NoisyFormattable : IFormattable
    {
        private readonly ILog _log;

        public NoisyFormattable(ILog log) => _log = log;

        public string ToString(string? format, IFormatProvider? formatProvider)
        {
            _log.InfoFormat("formatting {0}", format);
            return "F(" + format + ")";
        }

        public override string ToString() => ToString(null, null);
    }

    private sealed class NoisyException : Exception
    {
        private readonly ILog _log;

        public NoisyException(ILog log)
            : base("boom") => _log = log;

        public override string ToString()
        {
            _log.InfoFormat("exception text {0}", 2);
            return "NoisyException: boom";
        }
    }
}
