using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// Each file appender behind each async appender, configured from XML the way users do: after
/// <c>LogManager.Shutdown()</c> (here the repository's), the events logged equal the lines on disk, each producer's in
/// order. log4net's own FileAppender with immediateFlush=false is in the list too.
/// </summary>
public sealed class BehindAsyncAppenderTests
{
    private const int Producers = 4;
    private const int PerProducer = 5_000;

    private static readonly Dictionary<string, string> Files = new Dictionary<string, string>
    {
        ["BufferedFileAppender"] = @"<appender name=""file"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
              <file value=""{dir}app.log"" />",
        ["RollingBufferedFileAppender"] = @"<appender name=""file"" type=""LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog"">
              <file value=""{dir}app.log"" />
              <rollingStyle value=""Size"" />
              <maximumFileSize value=""100MB"" />",
        ["log4net FileAppender"] = @"<appender name=""file"" type=""log4net.Appender.FileAppender"">
              <file value=""{dir}app.log"" />
              <immediateFlush value=""false"" />",
    };

    public static IEnumerable<TestCaseData> Cases() =>
        from kind in AsyncAppenderKind.All
        from file in Files.Keys
        select new TestCaseData(kind.TypeName, file).SetName($"{kind.TypeName} -> {file}");

    [TestCaseSource(nameof(Cases))]
    public void EventsLogged_EqualLinesOnDiskAfterShutdown(string asyncType, string fileType)
    {
        string xml = $@"<log4net>
              <appender name=""async"" type=""LowLatencyLog.Appender.{asyncType}, LowLatencyLog"">
                <bufferSize value=""1024"" />
                <appender-ref ref=""file"" />
              </appender>
              {Files[fileType]}
                <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%date [%thread] %-5level %logger - %message%newline"" /></layout>
              </appender>
              <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
            </log4net>";
        using var harness = new Log4netHarness(xml);
        var log = harness.Logger("behind");
        var failures = new Exception?[Producers];
        Thread[] threads = Enumerable.Range(0, Producers).Select(p => new Thread(() =>
        {
            try
            {
                for (int i = 0; i < PerProducer; i++)
                {
                    log.Info($"producer {p} event {i}");
                }
            }
            catch (Exception e)
            {
                failures[p] = e;
            }
        })).ToArray();
        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        foreach (Thread thread in threads)
        {
            Assert.That(thread.Join(TimeSpan.FromMinutes(1)), Is.True);
        }

        harness.Shutdown();
        Assert.That(failures, Has.All.Null);

        string[] lines = File.ReadAllLines(harness.PathOf("app.log"));
        Assert.That(lines, Has.Length.EqualTo(Producers * PerProducer), "every event logged is a line on disk");
        var next = new int[Producers];
        foreach (string line in lines)
        {
            string[] words = line.Substring(line.IndexOf(" - producer ", StringComparison.Ordinal) + 12).Split(' ');
            int producer = int.Parse(words[0]), sequence = int.Parse(words[2]);
            Assert.That(sequence, Is.EqualTo(next[producer]++), $"producer {producer} in order");
        }

        Assert.That(harness.InternalErrors, Is.Empty);
    }
}
