using System.IO;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;
using static LowLatencyLog.Tests.Support.FileAppenderTesting;

namespace LowLatencyLog.Tests.Appender;

/// <summary>A buffered file appender's activation: settings read and reported, activated again with or without a file, after close.</summary>
public sealed class FileAppenderActivationTests
{
    private string _folder = "";

    [SetUp]
    public void CreateFolder() => _folder = Directory.CreateTempSubdirectory("lll-file-").FullName;

    [TearDown]
    public void DeleteFolder() => Directory.Delete(_folder, recursive: true);

    [TestCase("false")]
    [TestCase("true")]
    public void ActivatedAgainAfterClose_StaysClosed_AndTheFileKeepsItsEvents(string appendToFile)
    {
        // log4net's file appender forgets its file on Close; reopening here could truncate what was written.
        string path = Path.Combine(_folder, "closed.log");
        var layout = new log4net.Layout.PatternLayout("%message%newline") { Header = "[H]\n", Footer = "[F]\n" };
        layout.ActivateOptions();
        var appender = new BufferedFileAppender { File = path, AppendToFile = appendToFile, Layout = layout };
        appender.ActivateOptions();
        appender.DoAppend(Events(0, 2));
        appender.Close();
        string closed = File.ReadAllText(path);

        appender.ActivateOptions();
        appender.DoAppend(Events(2, 2));
        appender.Close();

        Assert.That(closed, Is.EqualTo($"[H]\n{EventText(0)}\n{EventText(1)}\n[F]\n"));
        Assert.That(File.ReadAllText(path), Is.EqualTo(closed));
    }

    [Test]
    public void ActivatedAgainWithoutAFile_WritesOnToTheOpenFile()
    {
        string path = Path.Combine(_folder, "kept.log");
        var layout = new log4net.Layout.PatternLayout("%message%newline") { Header = "[H]\n", Footer = "[F]\n" };
        layout.ActivateOptions();
        var appender = new BufferedFileAppender { File = path, Layout = layout };
        appender.ActivateOptions();
        appender.DoAppend(Events(0, 1));
        appender.File = null;
        appender.ActivateOptions();
        appender.DoAppend(Events(1, 1));
        appender.Close();

        Assert.That(File.ReadAllText(path), Is.EqualTo($"[H]\n{EventText(0)}\n{EventText(1)}\n[F]\n"));
    }

    [Test]
    public void BadSettings_AreReportedWithTheDefault_AndTheAppenderStillWrites()
    {
        using var harness = new Log4netHarness(@"<log4net>
  <appender name=""file"" type=""LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog"">
    <file value=""{dir}app.log"" />
    <appendToFile value=""maybe"" />
    <immediateFlush value=""yes"" />
    <encoding value=""klingon"" />
    <bufferSize value=""abc"" />
    <flushInterval value=""-5"" />
    <rollingStyle value=""Gamma"" />
    <maximumFileSize value=""1.5MB"" />
    <maxSizeRollBackups value=""many"" />
    <countDirection value=""down"" />
    <staticLogFileName value=""nope"" />
    <preserveLogFileNameExtension value=""2"" />
    <datePattern value=""'fixed'"" />
    <lockingModel type=""log4net.Appender.FileAppender+MinimalLock"" />
    <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
  </appender>
  <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
</log4net>");
        string errors = string.Join("\n", harness.InternalErrors);
        foreach ((string setting, string value, string defaultValue) in new[]
        {
            ("appendToFile", "maybe", "True"), ("immediateFlush", "yes", "False"), ("encoding", "klingon", "UTF-8 without BOM"),
            ("bufferSize", "abc", "1048576"), ("flushInterval", "-5", "1000"), ("rollingStyle", "Gamma", "Composite"),
            ("maximumFileSize", "1.5MB", "10485760"), ("maxSizeRollBackups", "many", "0"), ("countDirection", "down", "-1"),
            ("staticLogFileName", "nope", "True"), ("preserveLogFileNameExtension", "2", "False"), ("datePattern", "'fixed'", ".yyyy-MM-dd"),
        })
        {
            Assert.That(errors, Does.Contain($"Setting '{setting}' has the value \"{value}\"").And.Contain($"Using the default, {defaultValue}."), setting);
        }

        Assert.That(errors, Does.Contain("Accepted: one of Once, Size, Date, Composite"));
        harness.Logger().Info("still works");
        harness.Shutdown();
        Assert.That(File.ReadAllText(harness.PathOf("app.log")), Is.EqualTo("still works\n"));
    }
}
