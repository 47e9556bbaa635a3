using System;
using System.IO;
using System.Linq;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Files;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// File 7 (docs/behaviours.md): a size roll that fails (the next file cannot be opened, or the current one cannot be moved away)
/// never deletes or shifts backups again on the next event: the appender keeps writing, reports, and rolls again only
/// once the cause is gone.
/// </summary>
public sealed class FailedRollTests
{
    private string _folder = "";

    [SetUp]
    public void CreateFolder()
    {
        _folder = Directory.CreateTempSubdirectory("lll-failed-roll-").FullName;
        for (int n = 1; n <= 3; n++)
        {
            File.WriteAllText(Path.Combine(_folder, "app.log." + n), $"sentinel {n}\n");
        }
    }

    [TearDown]
    public void DeleteFolder() => Directory.Delete(_folder, recursive: true);

    [Test]
    public void ARollWhoseNextFileCannotBeOpened_ShiftsTheBackupsOnce_AndLosesNothingOnceOpeningWorksAgain()
    {
        bool refuse = false;
        var errors = new RecordingErrorHandler();
        var appender = NewAppender(errors, (path, append) => refuse
            ? throw new IOException("Too many open files")
            : LogFile.Open(path, append));
        appender.ActivateOptions();

        appender.DoAppend(Event(0)); // opens the file
        refuse = true;
        for (int i = 1; i < 40; i++)
        {
            appender.DoAppend(Event(i)); // rolls once past 1 KB; the next file cannot be opened
        }

        // One roll: the rolled file became .1, the sentinels moved one step, the oldest went.
        Assert.That(File.ReadAllText(Backup(2)), Is.EqualTo("sentinel 1\n"), "sentinel 1, shifted once");
        Assert.That(File.ReadAllText(Backup(3)), Is.EqualTo("sentinel 2\n"), "sentinel 2, shifted once");
        Assert.That(File.Exists(Backup(4)), Is.False);

        refuse = false;
        for (int i = 40; i < 45; i++)
        {
            appender.DoAppend(Event(i)); // opening works again: everything held is written
        }

        appender.Close();
        string[] written = new[] { Backup(1), Path.Combine(_folder, "app.log"), Backup(2), Backup(3) }
            .Where(File.Exists).SelectMany(File.ReadAllLines).Where(l => l.StartsWith("event ", StringComparison.Ordinal)).ToArray();
        Assert.That(written.Select(l => l.Split(' ')[1]).Select(int.Parse).OrderBy(i => i), Is.EqualTo(Enumerable.Range(0, 45)), "every event, once");
        Assert.That(errors.Errors, Has.Some.Contains("Could not open"));
    }

    [Test]
    public void ARollThatCannotMoveTheFile_TouchesNoBackup_AndIsNotRetriedOnEveryEvent()
    {
        // A directory at the interim name: moving the current file away fails, as when another process holds it.
        Directory.CreateDirectory(Path.Combine(RollingFiles.InterimName(Path.Combine(_folder, "app.log")), "blocker"));
        var errors = new RecordingErrorHandler();
        var appender = NewAppender(errors, open: null);
        appender.ActivateOptions();
        for (int i = 0; i < 200; i++)
        {
            appender.DoAppend(Event(i));
        }

        appender.Close();
        for (int n = 1; n <= 3; n++)
        {
            Assert.That(File.ReadAllText(Backup(n)), Is.EqualTo($"sentinel {n}\n"), $"backup {n} untouched");
        }

        string[] lines = File.ReadAllLines(Path.Combine(_folder, "app.log")).Where(l => l.StartsWith("event ", StringComparison.Ordinal)).ToArray();
        Assert.That(lines, Has.Length.EqualTo(200), "the file kept every event");
        int attempts = errors.Errors.Count(e => e.Contains("Could not roll file"));
        Assert.That(attempts, Is.InRange(1, 3), "a failed roll is retried at most once a second, not on every event");
    }

    [Test]
    public void AProcessKilledBetweenARollsTwoMoves_ItsRolledFileIsTheCurrentFileAgainAtTheNextStart()
    {
        string interim = RollingFiles.InterimName(Path.Combine(_folder, "app.log"));
        File.WriteAllText(interim, "before the kill\n");
        var errors = new RecordingErrorHandler();
        RollingBufferedFileAppender appender = NewAppender(errors, open: null);
        appender.MaximumFileSize = "1MB";
        appender.ActivateOptions();
        appender.DoAppend(new LoggingEvent(typeof(FailedRollTests), null, "App", Level.Info, "after the restart", null));
        appender.Close();

        Assert.That(File.Exists(interim), Is.False);
        Assert.That(File.ReadAllText(Path.Combine(_folder, "app.log")), Is.EqualTo("before the kill\nafter the restart\n"));
        Assert.That(File.ReadAllText(Backup(1)), Is.EqualTo("sentinel 1\n"), "the backups are as they were");
        Assert.That(errors.Errors, Is.Empty);
    }

    private string Backup(int n) => Path.Combine(_folder, "app.log." + n);

    private RollingBufferedFileAppender NewAppender(RecordingErrorHandler errors, Func<string, bool, Stream>? open)
    {
        var appender = new RollingBufferedFileAppender(new TestFiles(open: open), SystemClock.Instance)
        {
            Name = "rolling",
            File = Path.Combine(_folder, "app.log"),
            Layout = new PatternLayout("%message%newline"),
            RollingStyle = "Size",
            MaximumFileSize = "1KB",
            MaxSizeRollBackups = "3",
            ImmediateFlush = "true",
            ErrorHandler = errors,
        };
        ((PatternLayout)appender.Layout).ActivateOptions();
        return appender;
    }

    private static LoggingEvent Event(int i) =>
        new LoggingEvent(typeof(FailedRollTests), null, "App", Level.Info, $"event {i} " + new string('x', 100), null);
}
