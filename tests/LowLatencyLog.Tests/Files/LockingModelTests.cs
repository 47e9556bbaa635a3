using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// File 6 (docs/behaviours.md), log4net's <c>lockingModel</c>: with ExclusiveLock (the default) a second writer of the file is
/// refused and says so, and the first writer's file stays whole; with MinimalLock and InterProcessLock, several
/// processes append whole events to one file (and roll it) without losing or tearing any.
/// </summary>
[NonParallelizable]
public sealed class LockingModelTests
{
    private const int EventsPerProcess = 100_000;
    private string _folder = "";

    [SetUp]
    public void CreateFolder() => _folder = Directory.CreateTempSubdirectory("lll-locking-").FullName;

    [TearDown]
    public void DeleteFolder() => Directory.Delete(_folder, recursive: true);

    [TestCase("MinimalLock", "BufferedFileAppender")]
    [TestCase("InterProcessLock", "BufferedFileAppender")]
    [TestCase("MinimalLock", "RollingBufferedFileAppender")]
    [TestCase("InterProcessLock", "RollingBufferedFileAppender")]
    public void TwoProcessesSharingOneFile_EveryEventOfEachIsThereOnceWholeAndInItsOrder(string model, string fileKind) =>
        TwoWritersShareOneFile(model, fileKind, model, fileKind);

    /// <summary>
    /// File 9: one process on log4net's own FileAppender, one on ours, one file. log4net's InterProcessLock takes a named
    /// mutex around each write and appends at the end it finds under it; ours takes the same mutex (under both shared
    /// models), so neither overwrites the other. (log4net's MinimalLock takes no lock at all on Linux: not safe even
    /// between two log4net processes, so not tried here; docs/file-appenders.md.)
    /// </summary>
    [TestCase("InterProcessLock")]
    [TestCase("MinimalLock")]
    public void Log4netsOwnInterProcessLockAppender_AndOursOnOneFile_EveryEventOfEachIsThereOnceWholeAndInItsOrder(string ourModel) =>
        TwoWritersShareOneFile("InterProcessLock", "log4net.FileAppender", ourModel, "BufferedFileAppender");

    private void TwoWritersShareOneFile(string modelA, string fileKindA, string modelB, string fileKindB)
    {
        string path = Path.Combine(_folder, "app.log");
        string fileKind = fileKindB;
        using Process first = StartChild(modelA, fileKindA, path, "A");
        using Process second = StartChild(modelB, fileKindB, path, "B");
        Task<string> firstErrors = first.StandardError.ReadToEndAsync();
        Task<string> secondErrors = second.StandardError.ReadToEndAsync();
        Assert.That(first.StandardOutput.ReadLine(), Is.EqualTo("ready"));
        Assert.That(second.StandardOutput.ReadLine(), Is.EqualTo("ready"));
        first.StandardInput.WriteLine("go");
        second.StandardInput.WriteLine("go");
        first.StandardInput.Flush();
        second.StandardInput.Flush();
        Assert.That(first.StandardOutput.ReadLine(), Is.EqualTo("done"), firstErrors.Result);
        Assert.That(second.StandardOutput.ReadLine(), Is.EqualTo("done"), secondErrors.Result);
        Assert.That(first.WaitForExit(60_000) && second.WaitForExit(60_000), Is.True);
        Assert.That(firstErrors.Result + secondErrors.Result, Does.Not.Contain("ERROR"));

        // Oldest first: numbered backups (counting up), then the current file.
        List<string> files = Directory.GetFiles(_folder, "app.log.*")
            .Where(f => f != path)
            .OrderBy(f => int.Parse(Path.GetExtension(f).TrimStart('.')))
            .Append(path)
            .ToList();
        if (fileKind == "RollingBufferedFileAppender")
        {
            Assert.That(files, Has.Count.GreaterThan(3), "the file rolled several times");
        }

        var next = new Dictionary<string, int> { ["A"] = 0, ["B"] = 0 };
        foreach (string file in files)
        {
            string text = File.ReadAllText(file);
            Assert.That(text.Length == 0 || text.EndsWith("\n", StringComparison.Ordinal), Is.True, $"{file} ends with a whole line");
            foreach (string line in text.Split('\n').Take(text.Split('\n').Length - 1))
            {
                string[] fields = line.Split(' ');
                Assert.That(fields, Has.Length.EqualTo(3), $"a whole line: '{line}'");
                string tag = fields[0];
                Assert.That(next.ContainsKey(tag), Is.True, $"a line of A or B: '{line}'");
                int sequence = int.Parse(fields[1]);
                Assert.That(sequence, Is.EqualTo(next[tag]), $"{tag}'s events in order, none lost or repeated ({Path.GetFileName(file)})");
                Assert.That(fields[2], Is.EqualTo(new string((char)('a' + sequence % 26), sequence * 7 % 200)), $"'{line}' is whole");
                next[tag] = sequence + 1;
            }
        }

        Assert.That(next["A"], Is.EqualTo(EventsPerProcess));
        Assert.That(next["B"], Is.EqualTo(EventsPerProcess));
    }

    [Test]
    public void ExclusiveLock_ASecondProcessWritingTheFile_IsRefusedAndSaysSo_TheFirstWritersFileStaysWhole()
    {
        string path = Path.Combine(_folder, "app.log");
        var errors = new RecordingErrorHandler();
        BufferedFileAppender holder = Appender(path, errors, lockingModel: null);
        using Process other = StartChild("ExclusiveLock", "BufferedFileAppender", path, "B");
        Task<string> otherErrors = other.StandardError.ReadToEndAsync();
        Assert.That(other.StandardOutput.ReadLine(), Is.EqualTo("ready"));
        other.StandardInput.WriteLine("go");
        other.StandardInput.Flush();
        for (int i = 0; i < EventsPerProcess; i++)
        {
            holder.DoAppend(Event($"A {i}"));
        }

        Assert.That(other.StandardOutput.ReadLine(), Is.EqualTo("done"));
        Assert.That(other.WaitForExit(60_000), Is.True);
        holder.Close();

        Assert.That(otherErrors.Result, Does.Contain("is being written by another appender or process"), "visible without internal debugging");
        Assert.That(otherErrors.Result, Does.Contain("are lost"), "the refused writer counts what it could not write");
        Assert.That(errors.Errors, Is.Empty);
        string[] lines = File.ReadAllLines(path);
        Assert.That(lines, Is.EqualTo(Enumerable.Range(0, EventsPerProcess).Select(i => $"A {i}")), "the first writer's events, whole and alone");
    }

    [TestCase(null)]
    [TestCase("ExclusiveLock")]
    public void ExclusiveLock_ASecondAppenderOnTheSameFileInTheProcess_IsRefusedAndTheFileKeepsTheFirstOnesEvents(string? model)
    {
        string path = Path.Combine(_folder, "app.log");
        var firstErrors = new RecordingErrorHandler();
        var secondErrors = new RecordingErrorHandler();
        BufferedFileAppender first = Appender(path, firstErrors, model);
        BufferedFileAppender second = Appender(path, secondErrors, model);
        first.DoAppend(Event("first"));
        second.DoAppend(Event("second"));
        second.Flush(1000);
        second.Close();
        first.Close();

        Assert.That(File.ReadAllLines(path), Is.EqualTo(new[] { "first" }));
        Assert.That(secondErrors.Errors.First(), Does.Contain("is being written by another appender or process").And.Contain("MinimalLock"));
        Assert.That(secondErrors.Errors, Has.Some.Contains("are lost"));
        Assert.That(firstErrors.Errors, Is.Empty);
    }

    [TestCase("MinimalLock")]
    [TestCase("InterProcessLock")]
    public void SharedModel_TheFileIsClosedBetweenWrites_SoOthersMayRenameIt_AndTheNextWriteStartsItAgain(string model)
    {
        string path = Path.Combine(_folder, "app.log");
        var errors = new RecordingErrorHandler();
        BufferedFileAppender appender = Appender(path, errors, model);
        appender.DoAppend(Event("one"));
        appender.Flush(1000);
        File.Move(path, path + ".moved"); // a rotation tool; Windows allows it only while the file is closed
        appender.DoAppend(Event("two"));
        appender.Close();

        Assert.That(File.ReadAllLines(path + ".moved"), Is.EqualTo(new[] { "one" }));
        Assert.That(File.ReadAllLines(path), Is.EqualTo(new[] { "two" }));
        Assert.That(errors.Errors, Is.Empty);
    }

    /// <summary>
    /// A repeating date pattern (a weekday) under a shared model: last cycle's dated file is rolled over, as log4net
    /// does; a dated file another process wrote in the period that just ended is its roll, and the current file is kept.
    /// </summary>
    [TestCase(false)]
    [TestCase(true)]
    public void SharedModel_ADateRoll_TellsLastCyclesFileFromAnotherProcesssRoll(bool rolledByAnotherProcess)
    {
        string path = Path.Combine(_folder, "app.log");
        var monday = new DateTime(2026, 3, 2, 23, 59, 0);
        File.WriteAllText(path + ".Mon", rolledByAnotherProcess ? "monday, from the other process\n" : "a week ago\n");
        File.SetLastWriteTime(path + ".Mon", rolledByAnotherProcess ? monday.AddSeconds(30) : monday.AddDays(-7));
        var clock = new FakeClock(monday);
        var errors = new RecordingErrorHandler();
        var appender = new RollingBufferedFileAppender(new TestFiles(), clock)
        {
            File = path,
            Layout = new PatternLayout("%message%newline"),
            RollingStyle = "Date",
            DatePattern = "'.'ddd",
            ImmediateFlush = "true",
            ErrorHandler = errors,
            LockingModel = new FileAppender.MinimalLock(),
        };
        appender.ActivateOptions();
        appender.DoAppend(Event("monday"));
        clock.Now = monday.AddMinutes(2); // Tuesday
        appender.DoAppend(Event("tuesday"));
        appender.Close();

        if (rolledByAnotherProcess)
        {
            Assert.That(File.ReadAllText(path + ".Mon"), Is.EqualTo("monday, from the other process\n"), "its roll is kept");
            Assert.That(File.ReadAllText(path), Is.EqualTo("monday\ntuesday\n"), "appended to, never truncated");
        }
        else
        {
            Assert.That(File.ReadAllText(path + ".Mon"), Is.EqualTo("monday\n"), "last week's file rolled over, as log4net does");
            Assert.That(File.ReadAllText(path), Is.EqualTo("tuesday\n"));
        }

        Assert.That(errors.Errors, Is.Empty);
    }

    private static BufferedFileAppender Appender(string path, IErrorHandler errors, string? lockingModel)
    {
        var appender = new BufferedFileAppender
        {
            File = path,
            Layout = new PatternLayout("%message%newline"),
            ErrorHandler = errors,
            LockingModel = lockingModel switch
            {
                null => null,
                "ExclusiveLock" => new FileAppender.ExclusiveLock(),
                "MinimalLock" => new FileAppender.MinimalLock(),
                _ => new FileAppender.InterProcessLock(),
            },
        };
        appender.ActivateOptions();
        return appender;
    }

    private static LoggingEvent Event(string message) =>
        new LoggingEvent(new LoggingEventData { Message = message, Level = Level.Info, LoggerName = "test", TimeStampUtc = DateTime.UtcNow });

    private static Process StartChild(string model, string fileKind, string path, string tag)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardInput = true, RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
        };
        foreach (string argument in new[]
                 {
                     Path.Combine(AppContext.BaseDirectory, "LowLatencyLog.KillTarget.dll"), "share", model, fileKind, path,
                     EventsPerProcess.ToString(System.Globalization.CultureInfo.InvariantCulture), tag,
                 })
        {
            start.ArgumentList.Add(argument);
        }

        return Process.Start(start)!;
    }

    /// <summary>A locking model of the user's own, which this library does not take.</summary>
    public sealed class UsersOwnLock : FileAppender.LockingModelBase
    {
        public override void OpenFile(string filename, bool append, System.Text.Encoding encoding) { }

        public override void CloseFile() { }

        public override Stream? AcquireLock() => null;

        public override void ReleaseLock() { }

        public override void ActivateOptions() { }

        public override void OnClose() { }
    }
}
