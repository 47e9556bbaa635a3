using System;
using System.IO;
using System.Linq;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Reliability;

/// <summary>
/// Async 17: log4net's default error handler prints only its first error, so a loss reported only there is
/// invisible once anything has failed. Losses and failures also go to log4net's internal log as errors (which show
/// without internal debugging), at most a line a second for each kind.
/// </summary>
public sealed class VisibleLossTests
{
    [TestCaseSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
    public void ACloseThatTimesOut_AfterAnEarlierError_IsStillReportedInTheInternalLog(AsyncAppenderKind kind)
    {
        using var harness = new Log4netHarness($@"<log4net>
            <appender name=""async"" type=""{kind.TypeAttribute}"">
              <shutdownTimeout value=""300"" />
              <appender-ref ref=""plain"" />
              <appender-ref ref=""child"" />
            </appender>
            <appender name=""plain"" type=""LowLatencyLog.Tests.Support.PlainAppender, LowLatencyLog.Tests"" />
            <appender name=""child"" type=""LowLatencyLog.Tests.Support.RecordingAppender, LowLatencyLog.Tests"" />
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
          </log4net>");
        var child = harness.Appender<RecordingAppender>("child");
        var async = harness.Appender<AsyncForwardingAppender>("async");
        var plain = harness.Appender<PlainAppender>("plain");
        plain.ThrowWhen = e => e.RenderedMessage == "boom"; // the async appender's default handler has its one report
        harness.Logger().Info("boom");
        async.Flush(10_000);
        plain.ThrowWhen = null;

        child.Hold(); // then the child hangs, and the close gives up
        for (int i = 0; i < 10; i++)
        {
            harness.Logger().Info("stuck " + i);
        }

        async.Close();
        child.Open();

        string[] errors = harness.InternalErrors;
        Assert.That(errors, Has.Some.Contains("failed"), "the child's failure");
        Assert.That(errors, Has.Some.Contains("Close timed out").And.Contains("will not be delivered"), "the loss at close, though the handler has had its one report");
    }

    [Test]
    public void AFileLossAfterAnEarlierError_IsStillReportedInTheInternalLog_AndRepeatsAreRateLimited()
    {
        string folder = Path.Combine(Path.GetTempPath(), "lll-visible-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(folder);
        string blocked = Path.Combine(folder, "blocked");
        Directory.CreateDirectory(blocked); // a folder where the file should be: every open fails
        try
        {
            using var harness = new Log4netHarness($@"<log4net>
                <appender name=""file"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
                  <file value=""{blocked}"" />
                  <immediateFlush value=""true"" />
                  <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
                </appender>
                <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
              </log4net>");
            for (int i = 0; i < 50; i++)
            {
                harness.Logger().Info("event " + i);
            }

            harness.Shutdown(); // what could not be written is lost at the close: a second, different report

            string[] opens = harness.InternalErrors.Where(e => e.Contains("Could not open the file")).ToArray();
            Assert.That(opens, Is.Not.Empty, "the first failure (the default handler prints it)");
            Assert.That(opens.Length, Is.LessThan(5), "rate-limited, not a line per event");
            Assert.That(harness.InternalErrors, Has.Some.Contains("[file]").And.Contains("are lost"),
                "the loss at the close, though the default handler has had its one report");
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
