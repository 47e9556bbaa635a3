using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Files;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// File 9 (docs/behaviours.md), beside log4net's own appenders: the same named locks as log4net's, <c>NoLock</c> as log4net
/// takes it, a lock that cannot be had refused, a writer killed holding the lock costing no one a line or a file,
/// file times read in the <c>dateTimeStrategy</c>'s zone, and <c>%VARIABLES%</c> in the file name.
/// </summary>
[NonParallelizable]
public sealed class Log4netSideBySideTests
{
    private string _folder = "";

    [SetUp]
    public void CreateFolder() => _folder = Directory.CreateTempSubdirectory("lll-side-").FullName;

    [TearDown]
    public void DeleteFolder() => Directory.Delete(_folder, recursive: true);

    [Test]
    public void NoLock_IsAcceptedAsLog4netAcceptsIt_ASecondWriterOpensTheFile()
    {
        string path = Path.Combine(_folder, "app.log");
        var firstErrors = new RecordingErrorHandler();
        var secondErrors = new RecordingErrorHandler();
        BufferedFileAppender first = Appender(path, firstErrors, new FileAppender.NoLock());
        first.DoAppend(Event("first"));
        first.Flush(1000);
        BufferedFileAppender second = Appender(path, secondErrors, new FileAppender.NoLock());
        second.DoAppend(Event("second"));
        second.Close();
        first.Close();

        Assert.That(firstErrors.Errors.Concat(secondErrors.Errors), Is.Empty);
        Assert.That(File.ReadAllLines(path), Is.EqualTo(new[] { "first", "second" }));
    }

    /// <summary>log4net's appenders, run here, create named mutexes whose names are the ones the shared models take.</summary>
    [Test]
    public void TheSharedModels_TakeTheMutexesLog4netsOwnAppendersTakeForTheFile()
    {
        Assume.That(RuntimeInformation.IsOSPlatform(OSPlatform.Linux), "named mutexes show as files on Linux only");

        // log4net's own, on a relative path: the name comes from the absolute path, for both of its file appenders.
        foreach (FileAppender theirs in new[] { new FileAppender(), new RollingFileAppender() })
        {
            string relative = Path.Combine("lll-mutex-" + Guid.NewGuid().ToString("N"), "theirs.log");
            string theirsFull = log4net.Util.SystemInfo.ConvertToFullPath(relative);
            theirs.File = relative;
            theirs.Layout = new PatternLayout("%message%newline");
            theirs.LockingModel = new FileAppender.InterProcessLock();
            theirs.ActivateOptions();
            try
            {
                string kind = theirs.GetType().Name;
                Assert.That(MutexFile(SharedLock.Log4netName(theirsFull)), Is.Not.Null, $"{kind}'s InterProcessLock mutex has the name computed here");
                Assert.That(MutexFile(SharedLock.Log4netName(theirsFull) + "_rolling") != null, Is.EqualTo(theirs is RollingFileAppender), $"{kind}: a rolling mutex");
            }
            finally
            {
                theirs.Close();
                Directory.Delete(Path.GetDirectoryName(theirsFull)!, recursive: true);
            }
        }

        foreach (FileAppender.LockingModelBase model in new FileAppender.LockingModelBase[] { new FileAppender.MinimalLock(), new FileAppender.InterProcessLock() })
        {
            string ours = Path.Combine(_folder, model.GetType().Name, "ours.log");
            var appender = new RollingBufferedFileAppender
            {
                File = ours, Layout = new PatternLayout("%message%newline"), LockingModel = model, ErrorHandler = new RecordingErrorHandler(),
            };
            appender.ActivateOptions();
            appender.DoAppend(Event("one"));
            appender.Flush(1000);
            Assert.That(MutexFile(SharedLock.Log4netName(ours)), Is.Not.Null, $"{model.GetType().Name}: log4net's mutex for the file");
            Assert.That(MutexFile(SharedLock.Log4netName(ours) + "_rolling"), Is.Not.Null, $"{model.GetType().Name}: log4net's rolling mutex");
            appender.Close();
            Assert.That(File.ReadAllLines(ours), Is.EqualTo(new[] { "one" }));
        }
    }

    /// <summary>The file .NET keeps for a named mutex on Linux (in the session's folder, unless the name is Global\).</summary>
    private static string? MutexFile(string name) =>
        Directory.Exists("/tmp/.dotnet/shm")
            ? Directory.GetFiles("/tmp/.dotnet/shm", "*", SearchOption.AllDirectories).FirstOrDefault(f => Path.GetFileName(f) == name)
            : null;

    [TestCase("MinimalLock")]
    [TestCase("InterProcessLock")]
    public void ALockThatCannotBeCreated_IsRefusedLoudly_AndNothingIsWrittenWithoutIt(string model)
    {
        // A path longer than a file name may be: log4net's mutex name for it cannot be created (log4net's own appender
        // throws at activation). The same path through another folder spelling would do on a read-only /tmp.
        string deep = Path.Combine(_folder, new string('d', 120), new string('e', 120));
        string path = Path.Combine(deep, "app.log");
        Assume.That(SharedLock.Log4netName(path).Length, Is.GreaterThan(255));
        using var harness = new Log4netHarness($@"<log4net>
            <appender name=""file"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
              <file value=""{path}"" />
              <lockingModel type=""log4net.Appender.FileAppender+{model}"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
          </log4net>");
        harness.Logger().Info("never written without the lock");
        harness.Shutdown();

        Assert.That(harness.InternalErrors, Has.Some.Contains("Could not create the lock").And.Contain("Nothing is written"));
        Assert.That(File.Exists(path), Is.False, "no unprotected write");
    }

    /// <summary>
    /// A writer killed while holding the shared lock, after writing part of a line: the next write of a survivor (its
    /// file already open, its first line written) starts on a new line.
    /// </summary>
    [TestCase("MinimalLock")]
    [TestCase("InterProcessLock")]
    public void AWriterKilledHoldingTheLockMidLine_TheSurvivorsNextEventStartsOnANewLine(string model)
    {
        string path = Path.Combine(_folder, "app.log");
        var errors = new RecordingErrorHandler();
        BufferedFileAppender survivor = Appender(path, errors, model == "MinimalLock" ? new FileAppender.MinimalLock() : new FileAppender.InterProcessLock());
        survivor.DoAppend(Event("before"));
        survivor.Flush(1000);

        using (Process holder = Child("hold", path))
        {
            string? held = holder.StandardOutput.ReadLine();
            holder.Kill(); // SIGKILL: the lock is left held, abandoned
            holder.WaitForExit();
            Assert.That(held, Is.EqualTo("held"), holder.StandardError.ReadToEnd());
        }

        survivor.DoAppend(Event("after"));
        survivor.Close();

        Assert.That(File.ReadAllText(path), Is.EqualTo("before\npartial" + Environment.NewLine + "after\n"));
        Assert.That(errors.Errors, Is.Empty);
    }

    /// <summary>
    /// A process that holds the lock and never lets go: a write waits for it at most <see cref="SharedLock.Timeout"/>,
    /// then reports, keeps its events, and writes them once the lock is free, never without it.
    /// </summary>
    [Test]
    public void ALockHeldByAnotherProcess_TheWaitEnds_TheEventsStayBufferedAndAreWrittenOnceTheLockIsFree()
    {
        string path = Path.Combine(_folder, "app.log");
        var errors = new RecordingErrorHandler();
        BufferedFileAppender writer = Appender(path, errors, new FileAppender.InterProcessLock());
        using Process holder = Child("hold", path);
        string? held = holder.StandardOutput.ReadLine();
        writer.DoAppend(Event("waited"));
        bool writtenWhileHeld = writer.Flush(-1);
        string whileHeld = File.ReadAllText(path);
        holder.Kill();
        holder.WaitForExit();
        Assert.That(held, Is.EqualTo("held"));
        bool writtenAfter = writer.Flush(-1);
        writer.Close();

        Assert.That(writtenWhileHeld, Is.False);
        Assert.That(whileHeld, Is.EqualTo("partial"), "nothing written without the lock");
        Assert.That(errors.Errors, Has.Some.Contains($"Waited {SharedLock.Timeout} ms for the lock"));
        Assert.That(writtenAfter, Is.True);
        Assert.That(File.ReadAllText(path), Is.EqualTo("partial" + Environment.NewLine + "waited\n"));
    }

    /// <summary>
    /// A roll interrupted between its two moves leaves <c>app.log.rolling</c>; whether found at start-up (with app.log
    /// present) or by a later roll, it becomes the newest backup, and no roll deletes it.
    /// </summary>
    [TestCase("MinimalLock", true)]
    [TestCase("MinimalLock", false)]
    [TestCase(null, false)]
    public void AnOrphanedRollingFile_BecomesABackup_NeverDeleted(string? model, bool foundAtStart)
    {
        string path = Path.Combine(_folder, "app.log");
        string orphan = RollingFiles.InterimName(path);
        File.WriteAllText(path, "current\n");
        if (foundAtStart)
        {
            File.WriteAllText(orphan, "orphan\n");
        }

        var errors = new RecordingErrorHandler();
        var appender = new RollingBufferedFileAppender
        {
            File = path,
            Layout = new PatternLayout("%message%newline"),
            RollingStyle = "Size",
            MaximumFileSize = "1KB",
            MaxSizeRollBackups = "10",
            ImmediateFlush = "true",
            ErrorHandler = errors,
            LockingModel = model == null ? null : new FileAppender.MinimalLock(),
        };
        appender.ActivateOptions();
        if (!foundAtStart)
        {
            File.WriteAllText(orphan, "orphan\n");
        }

        for (int i = 0; i < 25; i++)
        {
            appender.DoAppend(Event($"event {i} " + new string('x', 90)));
        }

        appender.Close();

        string[] files = Directory.GetFiles(_folder).Select(Path.GetFileName).ToArray()!;
        Assert.That(files, Does.Not.Contain("app.log.rolling"));
        Assert.That(files, Does.Contain("app.log.3"), "it rolled more than once after the orphan was placed");
        string all = string.Concat(files.OrderByDescending(f => f == "app.log" ? 0 : int.Parse(Path.GetExtension(f).TrimStart('.')))
            .Select(f => File.ReadAllText(Path.Combine(_folder, f))));
        Assert.That(all, Does.Contain("orphan\n").And.Contain("current\n").And.Contain("event 24 "), "nothing lost");
        Assert.That(all.IndexOf("orphan", StringComparison.Ordinal), Is.LessThan(all.IndexOf("current", StringComparison.Ordinal)), "the orphan is older than the file rolled after it");
        Assert.That(errors.Errors, Has.Some.Contains("left by a roll that was interrupted"));
    }

    /// <summary>log4net 3.5 expands <c>%VARIABLES%</c> in the file's path when it opens it: so does this library.</summary>
    [Test]
    public void EnvironmentVariablesInTheFile_AreExpandedAsLog4netExpandsThem()
    {
        Environment.SetEnvironmentVariable("LLL_TEST_SUBFOLDER", "expanded");
        try
        {
            string Config(string type, string name) => $@"<log4net>
                <appender name=""file"" type=""{type}"">
                  <file value=""{{dir}}%LLL_TEST_SUBFOLDER%/{name}"" />
                  <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
                </appender>
                <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
              </log4net>";
            using var theirs = new Log4netHarness(Config("log4net.Appender.FileAppender", "theirs.log"));
            using var ours = new Log4netHarness(Config("LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog", "ours.log"), theirs.Directory);
            theirs.Logger().Info("here");
            ours.Logger().Info("here");
            theirs.Shutdown();
            ours.Shutdown();

            Assert.That(File.ReadAllText(Path.Combine(theirs.Directory, "expanded", "theirs.log")), Is.EqualTo("here" + Environment.NewLine), "log4net expands it");
            Assert.That(File.ReadAllText(Path.Combine(theirs.Directory, "expanded", "ours.log")), Is.EqualTo("here" + Environment.NewLine));
            Assert.That(Directory.Exists(Path.Combine(theirs.Directory, "%LLL_TEST_SUBFOLDER%")), Is.False);
            Assert.That(ours.InternalErrors, Is.Empty);
        }
        finally
        {
            Environment.SetEnvironmentVariable("LLL_TEST_SUBFOLDER", null);
        }
    }

    /// <summary>
    /// <c>UniversalDateTime</c> at start-up, in a zone west of UTC (the file last written just after UTC midnight, the
    /// previous evening there) and east of it (just before UTC midnight, the next morning there): log4net reads the file
    /// time in UTC; ours, run in the same process on a copy of the same files, leaves the same files.
    /// </summary>
    [TestCase("America/New_York", 1)]
    [TestCase("Asia/Tokyo", -60)]
    public void UniversalDateTime_AStartUpRoll_ReadsTheFileTimeInUtc_AsLog4netDoes(string zone, int minutesAfterUtcMidnight)
    {
        DateTime midnight = DateTime.UtcNow.Date;
        Assume.That(DateTime.UtcNow - midnight, Is.GreaterThan(TimeSpan.FromMinutes(2)), "not within the first minutes of a UTC day");
        string yesterday = midnight.AddDays(-1).ToString(".yyyy-MM-dd", System.Globalization.CultureInfo.InvariantCulture);
        foreach (string side in new[] { "theirs", "ours" })
        {
            string folder = Path.Combine(_folder, side);
            Directory.CreateDirectory(folder);
            File.WriteAllText(Path.Combine(folder, "app.log"), "last run\n");
            File.SetLastWriteTimeUtc(Path.Combine(folder, "app.log"), midnight.AddMinutes(minutesAfterUtcMidnight));
            File.WriteAllText(Path.Combine(folder, "app.log" + yesterday), "yesterday's backup\n");
            File.SetLastWriteTimeUtc(Path.Combine(folder, "app.log" + yesterday), midnight.AddHours(-12));
        }

        using (Process child = Child("utc-start", Path.Combine(_folder, "theirs"), Path.Combine(_folder, "ours"), zone))
        {
            string output = child.StandardOutput.ReadToEnd();
            string errors = child.StandardError.ReadToEnd();
            child.WaitForExit();
            Assert.That(output, Does.Contain("done " + zone), errors);
            Assert.That(errors, Does.Not.Contain("ERROR"));
        }

        Dictionary<string, string> Files(string side) =>
            Directory.GetFiles(Path.Combine(_folder, side)).ToDictionary(f => Path.GetFileName(f)!, File.ReadAllText);
        Dictionary<string, string> theirs = Files("theirs");
        bool west = minutesAfterUtcMidnight > 0;
        Assert.That(
            theirs["app.log" + yesterday],
            Is.EqualTo(west ? "yesterday's backup\n" : "last run\n"),
            west ? "log4net: the file is from today (UTC): not rolled" : "log4net: the file is from yesterday (UTC): rolled");
        Assert.That(Files("ours"), Is.EqualTo(theirs));
    }

    private static Process Child(string mode, string path, string? second = null, string? zone = null)
    {
        var start = new ProcessStartInfo("dotnet")
        {
            RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false,
        };
        start.ArgumentList.Add(Path.Combine(AppContext.BaseDirectory, "LowLatencyLog.KillTarget.dll"));
        start.ArgumentList.Add(mode);
        start.ArgumentList.Add(path);
        if (second != null)
        {
            start.ArgumentList.Add(second);
        }

        if (zone != null)
        {
            start.Environment["TZ"] = zone;
        }

        return Process.Start(start)!;
    }

    private static BufferedFileAppender Appender(string path, IErrorHandler errors, FileAppender.LockingModelBase model)
    {
        var appender = new BufferedFileAppender
        {
            File = path, Layout = new PatternLayout("%message%newline"), ErrorHandler = errors, LockingModel = model,
        };
        appender.ActivateOptions();
        return appender;
    }

    private static LoggingEvent Event(string message) =>
        new LoggingEvent(new LoggingEventData { Message = message, Level = Level.Info, LoggerName = "test", TimeStampUtc = DateTime.UtcNow });
}
