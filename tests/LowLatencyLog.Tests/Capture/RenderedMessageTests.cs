using System.Collections.Generic;
using System.IO;
using System.Text;
using log4net;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// SPEC 19: a message log4net rendered and cached before the event reached the async appender is written as rendered,
/// not formatted again from arguments changed since. <c>BufferingForwardingAppender</c> (default <c>Fix</c>) feeds
/// log4net's own <c>FileAppender</c> and an async appender side by side; the files must be the same.
/// </summary>
public sealed class RenderedMessageTests
{
    public static IEnumerable<TestCaseData> Kinds()
    {
        foreach (AsyncAppenderKind kind in AsyncAppenderKind.All)
        {
            yield return new TestCaseData(kind).SetArgDisplayNames(kind.TypeName);
        }
    }

    [TestCaseSource(nameof(Kinds))]
    public void BehindAFixingBuffer_ArgumentsChangedAfterTheCall_WrittenAsLog4netRenderedThem(AsyncAppenderKind kind)
    {
        using var harness = new Log4netHarness($@"<log4net>
            <appender name=""buffer"" type=""log4net.Appender.BufferingForwardingAppender"">
              <bufferSize value=""100"" />
              <appender-ref ref=""theirs"" />
              <appender-ref ref=""async"" />
            </appender>
            <appender name=""theirs"" type=""log4net.Appender.FileAppender"">
              <file value=""{{dir}}theirs.log"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>
            <appender name=""async"" type=""{kind.TypeAttribute}""><appender-ref ref=""ours"" /></appender>
            <appender name=""ours"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
              <file value=""{{dir}}ours.log"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""buffer"" /></root>
          </log4net>");
        ILog log = harness.Logger();
        var sb = new StringBuilder("a");
        log.InfoFormat("value {0}", sb);
        sb.Append('b');
        log.InfoFormat("then {0} and {1}", sb, 3);
        sb.Append('c');
        log.Info("plain");

        harness.Shutdown(); // the buffer delivers now, after the changes

        string theirs = File.ReadAllText(harness.PathOf("theirs.log"));
        Assert.That(theirs, Is.EqualTo("value a" + System.Environment.NewLine + "then ab and 3" + System.Environment.NewLine + "plain" + System.Environment.NewLine), "log4net's own file");
        Assert.That(File.ReadAllText(harness.PathOf("ours.log")), Is.EqualTo(theirs));
    }
}
