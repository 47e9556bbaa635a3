using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// Under the shared locking models ours reads the file's length after each write (other processes' writes count
/// towards the size roll). log4net's count leaves out the byte-order mark and header it wrote at open, so ours must
/// too, or it rolls one event early whenever they tip the count over the limit (found by the generated oracle).
/// </summary>
[Category("Oracle")]
public sealed class SharedFileCountTests
{
    [TestCase("MinimalLock")]
    [TestCase("InterProcessLock")]
    public void ASharedFile_RollsAtTheSameEventAsLog4net_TheHeaderAndBomUncounted(string lockingModel)
    {
        using var harness = new Log4netHarness("<log4net />");
        var clock = new FakeClock(new DateTime(2026, 3, 1, 12, 0, 0));
        FileAppender.LockingModelBase Lock() =>
            lockingModel == "MinimalLock" ? new FileAppender.MinimalLock() : new FileAppender.InterProcessLock();
        var theirs = new RollingFileAppender
        {
            Name = "theirs", File = harness.PathOf("theirs/app.log"), Layout = NewLayout(), Encoding = Encoding.UTF8,
            RollingStyle = RollingFileAppender.RollingMode.Size, MaximumFileSize = "1KB", MaxSizeRollBackups = 3,
            DateTimeStrategy = clock, LockingModel = Lock(),
        };
        var ours = new RollingBufferedFileAppender(new TestFiles(), clock)
        {
            Name = "ours", File = harness.PathOf("ours/app.log"), Layout = NewLayout(), Encoding = "utf-8",
            RollingStyle = "Size", MaximumFileSize = "1KB", MaxSizeRollBackups = "3", LockingModel = Lock(),
            ImmediateFlush = "true", // each event written, so the file's length is read after each
        };
        theirs.ActivateOptions();
        ours.ActivateOptions();
        harness.Hierarchy.Root.AddAppender(ours);
        harness.Hierarchy.Root.AddAppender(theirs);
        harness.Hierarchy.Configured = true;
        var log = harness.Logger("App");

        // 1,020 bytes counted (< 1 KB), 1,032 in the file with the BOM and the 9-byte header: no roll before the next.
        log.Info(new string('a', 1019));
        log.Info("second");
        log.Info(new string('b', 1100));
        log.Info("after a roll");
        harness.Shutdown();

        Dictionary<string, string> expected = Snapshot(harness.PathOf("theirs"));
        Dictionary<string, string> actual = Snapshot(harness.PathOf("ours"));
        Assert.That(Encoding.UTF8.GetString(Convert.FromHexString(expected["app.log.2"])), Does.Contain("a\nsecond\n"),
            "log4net kept the second event in the first file");
        Assert.That(actual, Is.EquivalentTo(expected));
    }

    private static PatternLayout NewLayout()
    {
        var layout = new PatternLayout("%message%newline") { Header = "[Header]\n" };
        layout.ActivateOptions();
        return layout;
    }

    private static Dictionary<string, string> Snapshot(string folder) =>
        Directory.GetFiles(folder).ToDictionary(p => Path.GetFileName(p), p => Convert.ToHexString(File.ReadAllBytes(p)));
}
