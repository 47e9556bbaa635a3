using System.IO;
using System.Linq;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// log4net <c>FileAppender</c> and <c>RollingFileAppender</c> configurations moved over by changing the <c>type</c>
/// attribute: what log4net accepts is accepted, a setting log4net does not use is not reported, and what the file
/// appenders cannot honour is reported, never ignored.
/// </summary>
public sealed class FileConfigMigrationTests
{
    private const int Events = 200;

    [TestCase("BufferedFileAppender", "log4net.Appender.FileAppender+InterProcessLock")]
    [TestCase("BufferedFileAppender", "log4net.Appender.FileAppender+MinimalLock")]
    [TestCase("RollingBufferedFileAppender", "log4net.Appender.FileAppender+InterProcessLock")]
    [TestCase("RollingBufferedFileAppender", "log4net.Appender.FileAppender+MinimalLock")]
    public void Log4netsSharingLockingModels_AreAcceptedSilently_AndTheAppenderWritesEveryEvent(string typeName, string model)
    {
        using var harness = new Log4netHarness(Xml(typeName, $@"<lockingModel type=""{model}"" />"));
        var appender = harness.Appender<BufferedFileAppender>("file");
        Assert.That(appender.LockingModel?.GetType().FullName, Is.EqualTo(model), "log4net's configurator set the property");
        Write(harness);
        harness.Shutdown();

        Assert.That(harness.InternalErrors, Is.Empty);
        Assert.That(harness.InternalMessagesContaining("Cannot find Property"), Is.Empty);
        Assert.That(harness.ReadLines("app.log"), Is.EqualTo(Enumerable.Range(0, Events).Select(i => "event " + i)));
    }

    [TestCase("BufferedFileAppender")]
    [TestCase("RollingBufferedFileAppender")]
    public void AnotherLockingModel_IsReportedOnce_AndTheAppenderWritesEveryEventAsWithExclusiveLock(string typeName)
    {
        string model = typeof(LockingModelTests.UsersOwnLock).AssemblyQualifiedName!;
        using var harness = new Log4netHarness(Xml(typeName, $@"<lockingModel type=""{model}"" />"));
        Write(harness);
        harness.Shutdown();

        string[] errors = harness.InternalErrors.Where(e => e.Contains("'lockingModel'")).ToArray();
        Assert.That(errors, Has.Length.EqualTo(1), $"internal errors: {string.Join(" | ", harness.InternalErrors)}");
        Assert.That(errors[0], Does.Contain(typeof(LockingModelTests.UsersOwnLock).FullName)
            .And.Contain("MinimalLock")
            .And.Contain("written as with ExclusiveLock")
            .And.Contain("docs/file-appenders.md"));
        Assert.That(harness.ReadLines("app.log"), Is.EqualTo(Enumerable.Range(0, Events).Select(i => "event " + i)));
    }

    [TestCase("BufferedFileAppender", "ExclusiveLock")]
    [TestCase("RollingBufferedFileAppender", "ExclusiveLock")]
    [TestCase("BufferedFileAppender", "NoLock")]
    [TestCase("RollingBufferedFileAppender", "NoLock")]
    public void ExclusiveLockAndNoLock_AreAcceptedSilently(string typeName, string model)
    {
        using var harness = new Log4netHarness(Xml(typeName, $@"<lockingModel type=""log4net.Appender.FileAppender+{model}"" />"));
        Write(harness);
        harness.Shutdown();

        Assert.That(harness.InternalErrors, Is.Empty);
        Assert.That(harness.InternalMessagesContaining("Cannot find Property"), Is.Empty);
        Assert.That(harness.ReadLines("app.log"), Has.Length.EqualTo(Events));
    }

    [TestCase("1")]
    [TestCase(" 1 ")]
    public void ANumericRollingStyle_RollsAsLog4netDoes_WithoutAnError(string style)
    {
        // log4net converts rollingStyle with Enum.Parse, which takes a member's number: 1 is Size.
        string settings = $@"<rollingStyle value=""{style}"" /><maximumFileSize value=""1KB"" /><maxSizeRollBackups value=""3"" />";
        using var harness = new Log4netHarness($@"<log4net>
              {Appender("ours", "LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog", "ours/app.log", settings)}
              {Appender("theirs", "log4net.Appender.RollingFileAppender", "theirs/app.log", settings)}
              <root><level value=""ALL"" /><appender-ref ref=""ours"" /><appender-ref ref=""theirs"" /></root>
            </log4net>");
        Write(harness, 600); // about 6 KB: more rolls than backups kept
        harness.Shutdown();

        Assert.That(harness.InternalErrors, Is.Empty);
        string[] theirs = Files(harness, "theirs");
        Assert.That(theirs, Is.EqualTo(new[] { "app.log", "app.log.1", "app.log.2", "app.log.3" }), "log4net rolled by size");
        Assert.That(Files(harness, "ours"), Is.EqualTo(theirs));
        foreach (string name in theirs)
        {
            Assert.That(File.ReadAllText(harness.PathOf("ours/" + name)), Is.EqualTo(File.ReadAllText(harness.PathOf("theirs/" + name))), name);
        }
    }

    [Test]
    public void RollingStyleZero_IsOnce_AndStartsANewFile()
    {
        using var harness = new Log4netHarness("<log4net />");
        File.WriteAllText(harness.PathOf("app.log"), "previous run\n");
        harness.Configure(Xml("RollingBufferedFileAppender", @"<rollingStyle value=""0"" /><maxSizeRollBackups value=""1"" />"));
        Write(harness);
        harness.Shutdown();

        Assert.That(harness.InternalErrors, Is.Empty);
        Assert.That(harness.ReadLines("app.log.1"), Is.EqualTo(new[] { "previous run" }), "Once rolls the old file away at start");
        Assert.That(harness.ReadLines("app.log"), Has.Length.EqualTo(Events));
    }

    [TestCase("7")]
    [TestCase("-1")]
    public void AnUndefinedRollingStyleNumber_IsReported(string style)
    {
        using var harness = new Log4netHarness(Xml("RollingBufferedFileAppender", $@"<rollingStyle value=""{style}"" />"));
        Write(harness);
        harness.Shutdown();

        string[] errors = harness.InternalErrors.Where(e => e.Contains("'rollingStyle'")).ToArray();
        Assert.That(errors, Has.Length.EqualTo(1), $"internal errors: {string.Join(" | ", harness.InternalErrors)}");
        Assert.That(errors[0], Does.Contain($"\"{style}\"").And.Contain("one of Once, Size, Date, Composite, or the number of one (0, 1, 2, 3)"));
        Assert.That(harness.ReadLines("app.log"), Has.Length.EqualTo(Events));
    }

    [TestCase("Size", false)]
    [TestCase("Once", false)]
    [TestCase("Date", true)]
    [TestCase("Composite", true)]
    public void ABadDatePattern_IsReportedOnlyWhenTheStyleRollsByDate(string style, bool reported)
    {
        // The pattern comes before the style on purpose: settings may come in any order.
        using var harness = new Log4netHarness(Xml(
            "RollingBufferedFileAppender", $@"<datePattern value=""'.'yyyy"" /><rollingStyle value=""{style}"" />"));
        Write(harness);
        harness.Shutdown();

        string[] errors = harness.InternalErrors.Where(e => e.Contains("'datePattern'")).ToArray();
        Assert.That(errors, Has.Length.EqualTo(reported ? 1 : 0), $"internal errors: {string.Join(" | ", harness.InternalErrors)}");
        Assert.That(harness.InternalErrors, Has.Length.EqualTo(errors.Length), "nothing else is reported");
        Assert.That(harness.ReadLines("app.log"), Has.Length.EqualTo(Events));
    }

    private static void Write(Log4netHarness harness, int events = Events)
    {
        var log = harness.Logger();
        for (int i = 0; i < events; i++)
        {
            log.Info("event " + i);
        }
    }

    private static string[] Files(Log4netHarness harness, string folder) =>
        Directory.GetFiles(harness.PathOf(folder)).Select(Path.GetFileName).OrderBy(n => n).ToArray()!;

    private static string Xml(string typeName, string settings) => $@"<log4net>
          {Appender("file", $"LowLatencyLog.Appender.{typeName}, LowLatencyLog", "app.log", settings)}
          <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
        </log4net>";

    private static string Appender(string name, string type, string file, string settings) => $@"
          <appender name=""{name}"" type=""{type}"">
            <file value=""{{dir}}{file}"" />
            {settings}
            <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
          </appender>";
}
