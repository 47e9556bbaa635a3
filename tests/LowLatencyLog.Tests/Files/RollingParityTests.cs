using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Files;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// The same events through <c>RollingBufferedFileAppender</c> and log4net 3.5.0's <c>RollingFileAppender</c>, set up
/// the same way (one clock moved by the test for both), must leave the same file names with the same bytes.
/// </summary>
[Category("Oracle")]
public sealed class RollingParityTests
{
    private static readonly DateTime Start = new DateTime(2026, 3, 1, 22, 58, 30, 250);

    public static IEnumerable<TestCaseData> Scenarios()
    {
        yield return Case("size, 3 backups, counting down", new Settings("Size") { Backups = 3 });
        yield return Case("size, no backups (truncate)", new Settings("Size") { Backups = 0 });
        yield return Case("size, unlimited backups", new Settings("Size") { Backups = -1 });
        yield return Case("size, 3 backups, counting up", new Settings("Size") { Backups = 3, CountDirection = 1 });
        yield return Case("size, counting up, dated names", new Settings("Size") { Backups = 3, CountDirection = 1, StaticName = false });
        yield return Case("size, counting down, dated names", new Settings("Size") { Backups = 2, StaticName = false });
        yield return Case("size, extension preserved", new Settings("Size") { Backups = 3, Preserve = true });
        yield return Case("size, extension preserved, counting up, dated names",
            new Settings("Size") { Backups = 2, Preserve = true, CountDirection = 1, StaticName = false });
        yield return Case("size, counting up, dated names, no backups, files shared with other processes",
            new Settings("Size") { Backups = 0, CountDirection = 1, StaticName = false, Shared = true });
        yield return Case("size, one large max", new Settings("Size") { Backups = 2, MaxSize = "10MB" });
        yield return Case("size, max 0: a roll before every event", new Settings("Size") { Backups = 3, MaxSize = "0" });
        yield return Case("size, negative max", new Settings("Size") { Backups = 3, MaxSize = "-1" });
        yield return Case("size, text after the unit (ignored, as log4net)", new Settings("Size") { Backups = 3, MaxSize = "1KB5" });
        yield return Case("date, static name", new Settings("Date"), step: TimeSpan.FromHours(5));
        yield return Case("date, dated names", new Settings("Date") { StaticName = false }, step: TimeSpan.FromHours(5));
        yield return Case("date by minute, extension preserved",
            new Settings("Date") { DatePattern = "yyyyMMdd-HHmm", Preserve = true }, step: TimeSpan.FromSeconds(25));
        yield return Case("composite, static name, 2 backups", new Settings("Composite") { Backups = 2 }, step: TimeSpan.FromHours(3));
        yield return Case("composite, static name, 2 backups, files shared with other processes",
            new Settings("Composite") { Backups = 2, Shared = true }, step: TimeSpan.FromHours(3));
        yield return Case("composite, static name, counting up, files shared with other processes",
            new Settings("Composite") { Backups = 3, CountDirection = 1, Shared = true }, step: TimeSpan.FromHours(3));
        yield return Case("composite, dated names, counting up",
            new Settings("Composite") { Backups = 3, StaticName = false, CountDirection = 1 }, step: TimeSpan.FromHours(3));
        yield return Case("composite, hourly, extension preserved, unlimited",
            new Settings("Composite") { Backups = -1, DatePattern = ".yyyy-MM-dd_HH", Preserve = true }, step: TimeSpan.FromMinutes(20));
        yield return Case("once, existing file and backup", new Settings("Once") { Backups = 2 }, prepare: dir =>
        {
            File.WriteAllText(Path.Combine(dir, "app.log"), "old run\n");
            File.WriteAllText(Path.Combine(dir, "app.log.1"), "older run\n");
        });
        yield return Case("size, existing backups at start", new Settings("Size") { Backups = 3 }, prepare: dir =>
        {
            File.WriteAllText(Path.Combine(dir, "app.log"), "current from last run\n");
            File.WriteAllText(Path.Combine(dir, "app.log.1"), "backup 1\n");
            File.WriteAllText(Path.Combine(dir, "app.log.2"), "backup 2\n");
            File.WriteAllText(Path.Combine(dir, "other.txt"), "not a log\n");
        });
        yield return Case("size, existing backups beyond the limit, counting up", new Settings("Size") { Backups = 2, CountDirection = 1 }, prepare: dir =>
        {
            File.WriteAllText(Path.Combine(dir, "app.log.3"), "backup 3\n");
            File.WriteAllText(Path.Combine(dir, "app.log.7"), "backup 7\n");
        });
        yield return Case("size, not appending to an existing file", new Settings("Size") { Backups = 2, Append = false }, prepare: dir =>
            File.WriteAllText(Path.Combine(dir, "app.log"), "previous run\n"));
        yield return Case("size, existing file larger than the max", new Settings("Size") { Backups = 2 }, prepare: dir =>
            File.WriteAllText(Path.Combine(dir, "app.log"), new string('p', 3000) + "\n"));
        yield return Case("date, static base file from an earlier day", new Settings("Date"), step: TimeSpan.FromHours(7), prepare: dir =>
        {
            string path = Path.Combine(dir, "app.log");
            File.WriteAllText(path, "written two days ago\n");
            File.SetLastWriteTime(path, Start.AddDays(-2));
        });
    }

    [TestCaseSource(nameof(Scenarios))]
    public void SameFileNamesAndBytes_AsLog4netRollingFileAppender(Settings settings, TimeSpan step, Action<string>? prepare)
    {
        using var harness = new Log4netHarness("<log4net />");
        string oursDir = Directory.CreateDirectory(harness.PathOf("ours")).FullName;
        string theirsDir = Directory.CreateDirectory(harness.PathOf("theirs")).FullName;
        prepare?.Invoke(oursDir);
        prepare?.Invoke(theirsDir);
        var clock = new FakeClock(Start);

        var theirs = new RollingFileAppender
        {
            Name = "theirs",
            File = Path.Combine(theirsDir, settings.File),
            Layout = NewLayout(),
            AppendToFile = settings.Append,
            RollingStyle = Enum.Parse<RollingFileAppender.RollingMode>(settings.Style),
            MaximumFileSize = settings.MaxSize,
            MaxSizeRollBackups = settings.Backups,
            DatePattern = settings.DatePattern,
            StaticLogFileName = settings.StaticName,
            PreserveLogFileNameExtension = settings.Preserve,
            CountDirection = settings.CountDirection,
            DateTimeStrategy = clock,
            LockingModel = settings.Shared ? new FileAppender.MinimalLock() : new FileAppender.ExclusiveLock(),
        };
        var ours = new RollingBufferedFileAppender(new TestFiles(), clock)
        {
            Name = "ours",
            File = Path.Combine(oursDir, settings.File),
            Layout = NewLayout(),
            AppendToFile = settings.Append ? "true" : "false",
            RollingStyle = settings.Style,
            MaximumFileSize = settings.MaxSize,
            MaxSizeRollBackups = settings.Backups.ToString(CultureInfo.InvariantCulture),
            DatePattern = settings.DatePattern,
            StaticLogFileName = settings.StaticName ? "true" : "false",
            PreserveLogFileNameExtension = settings.Preserve ? "true" : "false",
            CountDirection = settings.CountDirection.ToString(CultureInfo.InvariantCulture),
            LockingModel = settings.Shared ? new FileAppender.MinimalLock() : null,
        };
        var errors = new RecordingErrorHandler();
        ours.ErrorHandler = errors;
        theirs.ActivateOptions();
        ours.ActivateOptions();
        harness.Hierarchy.Root.AddAppender(ours);
        harness.Hierarchy.Root.AddAppender(theirs);
        harness.Hierarchy.Root.Level = Level.All;
        harness.Hierarchy.Configured = true;

        var log = harness.Logger("App");
        for (int i = 0; i < 120; i++)
        {
            if (i % 10 == 9)
            {
                clock.Now += step;
            }

            log.Info($"event {i} " + new string((char)('a' + i % 26), i * 37 % 150) + (i % 11 == 0 ? " ü😀" : ""));
        }

        harness.Shutdown();
        Dictionary<string, byte[]> expected = Snapshot(theirsDir);
        Dictionary<string, byte[]> actual = Snapshot(oursDir);
        TestContext.Out.WriteLine(string.Join(", ", expected.Select(f => $"{f.Key} ({f.Value.Length} B)").OrderBy(n => n, StringComparer.Ordinal)));
        if (settings.Backups != 0 && (settings.MaxSize == "1KB" || step > TimeSpan.Zero))
        {
            Assert.That(expected.Count, Is.GreaterThan(2), "log4net rolled");
        }

        Assert.That(actual.Keys.OrderBy(k => k, StringComparer.Ordinal), Is.EqualTo(expected.Keys.OrderBy(k => k, StringComparer.Ordinal)), "file names");
        foreach (KeyValuePair<string, byte[]> file in expected)
        {
            Assert.That(System.Text.Encoding.UTF8.GetString(actual[file.Key]), Is.EqualTo(System.Text.Encoding.UTF8.GetString(file.Value)), file.Key);
        }

        Assert.That(errors.Errors, Is.Empty);
    }

    [Test]
    public void ABatchCrossingTheSizeLimit_IsSplitWhereSingleEventsWouldBe()
    {
        using var harness = new Log4netHarness("<log4net />");
        var clock = new FakeClock(Start);
        RollingBufferedFileAppender single = NewSizeAppender(harness.PathOf("single/app.log"), clock);
        RollingBufferedFileAppender batched = NewSizeAppender(harness.PathOf("batched/app.log"), clock);
        LoggingEvent[] events = Enumerable.Range(0, 100)
            .Select(i => new LoggingEvent(typeof(RollingParityTests), harness.Repository, "App", Level.Info, $"event {i} " + new string('z', i % 90), null))
            .ToArray();
        foreach (LoggingEvent e in events)
        {
            single.DoAppend(e);
        }

        batched.DoAppend(events.Take(37).ToArray());
        batched.DoAppend(events.Skip(37).ToArray());
        single.Close();
        batched.Close();

        Dictionary<string, byte[]> expected = Snapshot(harness.PathOf("single"));
        Dictionary<string, byte[]> actual = Snapshot(harness.PathOf("batched"));
        Assert.That(expected.Count, Is.GreaterThan(3));
        Assert.That(actual.Keys, Is.EquivalentTo(expected.Keys));
        foreach (KeyValuePair<string, byte[]> file in expected)
        {
            Assert.That(actual[file.Key], Is.EqualTo(file.Value), file.Key);
        }
    }

    [Test]
    public void ABatch_ReadsTheClockOnce_AndRollsByDateBeforeItsFirstEvent()
    {
        using var harness = new Log4netHarness("<log4net />");
        var clock = new FakeClock(Start);
        var appender = new RollingBufferedFileAppender(new TestFiles(), clock)
        {
            File = harness.PathOf("dated/app.log"),
            Layout = NewLayout(),
            RollingStyle = "Date",
        };
        appender.ActivateOptions();
        LoggingEvent[] Batch(string name) => Enumerable.Range(0, 50)
            .Select(i => new LoggingEvent(typeof(RollingParityTests), harness.Repository, "App", Level.Info, $"{name} {i}", null))
            .ToArray();

        int reads = clock.Reads;
        appender.DoAppend(Batch("first"));
        Assert.That(clock.Reads - reads, Is.EqualTo(1), "one clock read for a batch of 50");

        clock.Now = Start.AddHours(2); // past midnight
        reads = clock.Reads;
        appender.DoAppend(Batch("second"));
        Assert.That(clock.Reads - reads, Is.EqualTo(1));

        reads = clock.Reads;
        foreach (LoggingEvent e in Batch("third").Take(3))
        {
            appender.DoAppend(e);
        }

        Assert.That(clock.Reads - reads, Is.EqualTo(3), "a single event is a batch of one: one read each");
        appender.Close();

        string[] previousDay = File.ReadAllLines(harness.PathOf("dated/app.log" + Start.ToString(".yyyy-MM-dd", CultureInfo.InvariantCulture)));
        string[] today = File.ReadAllLines(harness.PathOf("dated/app.log"));
        Assert.That(previousDay.Where(l => !l.StartsWith('[')), Is.EqualTo(Enumerable.Range(0, 50).Select(i => $"first {i}")));
        Assert.That(today.Where(l => !l.StartsWith('[')),
            Is.EqualTo(Enumerable.Range(0, 50).Select(i => $"second {i}").Concat(Enumerable.Range(0, 3).Select(i => $"third {i}"))));
    }

    [TestCase("Date")]
    [TestCase("Size")]
    public void ARollWhoseRenameFails_KeepsTheFileAndWritesOnInIt(string style)
    {
        // Date: the dated name puts the backup under "app.log/", a directory that cannot exist. Size: directories stand
        // where the backups would go. Either way the rename fails; the file must keep what it holds (not be truncated
        // when it is opened again), and the failure is reported.
        using var harness = new Log4netHarness("<log4net />");
        var clock = new FakeClock(Start);
        var errors = new RecordingErrorHandler();
        var appender = new RollingBufferedFileAppender(new TestFiles(), clock)
        {
            File = harness.PathOf("stuck/app.log"),
            Layout = NewLayout(),
            RollingStyle = style,
            DatePattern = "'/'yyyy-MM-dd",
            MaximumFileSize = "1KB",
            MaxSizeRollBackups = "2",
            CountDirection = "1", // the size roll renames the current file to app.log/... as well
            ErrorHandler = errors,
        };
        if (style == "Size")
        {
            // Directories where the size roll's backups would go: the rename fails on them.
            appender.DatePattern = "yyyy-MM-dd";
            for (int n = 1; n <= 3; n++)
            {
                Directory.CreateDirectory(harness.PathOf("stuck/app.log." + n));
            }
        }

        appender.ActivateOptions();
        LoggingEvent Event(int i) => new LoggingEvent(typeof(RollingParityTests), harness.Repository, "App", Level.Info, $"event {i} " + new string('x', 200), null);
        for (int i = 0; i < 8; i++)
        {
            appender.DoAppend(Event(i));
        }

        clock.Now = Start.AddDays(1);
        for (int i = 8; i < 16; i++)
        {
            appender.DoAppend(Event(i));
        }

        appender.Close();
        string[] kept = Directory.GetFiles(harness.PathOf("stuck"))
            .SelectMany(File.ReadAllLines).Where(l => l.StartsWith("event ", StringComparison.Ordinal)).ToArray();
        Assert.That(kept.Select(l => l.Split(' ')[1]).Select(int.Parse).OrderBy(i => i), Is.EqualTo(Enumerable.Range(0, 16)), "every event is on disk");
        Assert.That(errors.Errors, Has.Some.Contains("Could not roll file"));
    }

    [Test]
    public void ASizeRollWithoutBackups_TruncatesTheFileThroughTheHandleItHolds()
    {
        using var harness = new Log4netHarness("<log4net />");
        string path = harness.PathOf("app.log");
        var (appender, opens, errors) = NewCountingTruncatingAppender(path);
        LogEvents(appender, harness, 0, 16);
        appender.Close();
        string[] lines = File.ReadAllLines(path);
        Assert.That(opens.Count, Is.EqualTo(1), "the rolls truncated the open file instead of closing and opening it");
        Assert.That(lines.First(), Is.EqualTo("[Header]"));
        Assert.That(lines.Last(), Is.EqualTo("[Footer]"));
        int[] events = lines.Where(l => l.StartsWith("event ", StringComparison.Ordinal)).Select(l => int.Parse(l.Split(' ')[1])).ToArray();
        Assert.That(events, Is.Not.Empty.And.Ordered);
        Assert.That(events.Last(), Is.EqualTo(15));
        Assert.That(events.First(), Is.GreaterThan(0), "the file was truncated at least once");
        Assert.That(errors.Errors, Is.Empty);
    }

    [Test]
    public void ASizeRollWithoutBackups_AfterTheFileWasDeleted_StartsItAgainAtItsPath()
    {
        Assume.That(!OperatingSystem.IsWindows(), "an open file is deleted at once on Unix only");
        using var harness = new Log4netHarness("<log4net />");
        string path = harness.PathOf("app.log");
        var (appender, opens, errors) = NewCountingTruncatingAppender(path);
        LogEvents(appender, harness, 0, 8);
        File.Delete(path); // a clean-up tool, between two rolls
        LogEvents(appender, harness, 8, 16);

        appender.Close();
        Assert.That(File.Exists(path), Is.True);
        Assert.That(File.ReadAllLines(path).Where(l => l.StartsWith("event ", StringComparison.Ordinal)).Last(), Does.StartWith("event 15 "));
        Assert.That(opens.Count, Is.EqualTo(2), "the roll opened the path again rather than truncating the deleted file");
    }

    [Test]
    public void ASizeRollWithoutBackups_WhoseTruncationFails_ClosesThatHandle_ReportsIt_AndWritesOn()
    {
        using var harness = new Log4netHarness("<log4net />");
        string path = harness.PathOf("app.log");
        var errors = new RecordingErrorHandler();
        UntruncatableStream? first = null;
        RollingBufferedFileAppender appender = NewSizeAppender(path, backups: "0", errors: errors, open: (file, append) =>
        {
            Stream opened = LowLatencyLog.Files.LogFile.Open(file, append);
            return first == null ? first = new UntruncatableStream(opened) : opened;
        });
        LogEvents(appender, harness, 0, 16);

        appender.Close();
        Assert.That(first!.Disposed, Is.True, "the handle that could not be truncated is closed, not leaked");
        Assert.That(errors.Errors, Has.Some.Contains("Could not open the file"));
        Assert.That(File.ReadAllLines(path).Where(l => l.StartsWith("event ", StringComparison.Ordinal)).Last(), Does.StartWith("event 15 "));
    }

    private sealed class OpenCounter
    {
        public int Count { get; private set; }

        public Stream Open(string file, bool append)
        {
            Count++;
            return LowLatencyLog.Files.LogFile.Open(file, append);
        }
    }

    /// <summary>A file stream whose truncation fails (another process has the file mapped, on Windows).</summary>
    private sealed class UntruncatableStream : Stream
    {
        private readonly Stream _inner;

        public UntruncatableStream(Stream inner) => _inner = inner;

        public bool Disposed { get; private set; }

        public override bool CanRead => false;

        public override bool CanSeek => _inner.CanSeek;

        public override bool CanWrite => _inner.CanWrite;

        public override long Length => _inner.Length;

        public override long Position { get => _inner.Position; set => _inner.Position = value; }

        public override void Flush() => _inner.Flush();

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => _inner.Seek(offset, origin);

        public override void SetLength(long value) => throw new IOException("The file is in use.");

        public override void Write(byte[] buffer, int offset, int count) => _inner.Write(buffer, offset, count);

        protected override void Dispose(bool disposing)
        {
            Disposed = true;
            if (disposing)
            {
                _inner.Dispose();
            }

            base.Dispose(disposing);
        }
    }

    /// <summary>A size appender without backups whose file opens are counted.</summary>
    private static (RollingBufferedFileAppender Appender, OpenCounter Opens, RecordingErrorHandler Errors) NewCountingTruncatingAppender(string path)
    {
        var opens = new OpenCounter();
        var errors = new RecordingErrorHandler();
        return (NewSizeAppender(path, backups: "0", errors: errors, open: opens.Open), opens, errors);
    }

    private static void LogEvents(RollingBufferedFileAppender appender, Log4netHarness harness, int from, int to)
    {
        for (int i = from; i < to; i++)
        {
            appender.DoAppend(Event(harness, i));
        }
    }

    private static LoggingEvent Event(Log4netHarness harness, int i) =>
        new LoggingEvent(typeof(RollingParityTests), harness.Repository, "App", Level.Info, $"event {i} " + new string('x', 200), null);

    [Test]
    public void NoSystemWideMutex_IsCreatedForTheFile()
    {
        using var harness = new Log4netHarness("<log4net />");
        string path = harness.PathOf("app.log");
        RollingBufferedFileAppender appender = NewSizeAppender(path, new FakeClock(Start));
        string mutexName = path.Replace("\\", "_").Replace(":", "_").Replace("/", "_") + "_rolling";
        Assert.That(System.Threading.Mutex.TryOpenExisting(mutexName, out _), Is.False);
        appender.Close();
    }

    private static RollingBufferedFileAppender NewSizeAppender(
        string path, FakeClock? clock = null, string backups = "-1", RecordingErrorHandler? errors = null, Func<string, bool, Stream>? open = null)
    {
        var appender = new RollingBufferedFileAppender(new TestFiles(open: open), clock ?? (IClock)SystemClock.Instance)
        {
            File = path,
            Layout = NewLayout(),
            RollingStyle = "Size",
            MaximumFileSize = "1KB",
            MaxSizeRollBackups = backups,
        };

        if (errors != null)
        {
            appender.ErrorHandler = errors;
        }

        appender.ActivateOptions();
        return appender;
    }

    private static TestCaseData Case(string name, Settings settings, TimeSpan step = default, Action<string>? prepare = null) =>
        new TestCaseData(settings, step, prepare).SetArgDisplayNames(name);

    private static PatternLayout NewLayout()
    {
        var layout = new PatternLayout("%message%newline") { Header = "[Header]\n", Footer = "[Footer]\n" };
        layout.ActivateOptions();
        return layout;
    }

    private static Dictionary<string, byte[]> Snapshot(string folder) =>
        Directory.GetFiles(folder).ToDictionary(p => Path.GetFileName(p), File.ReadAllBytes);

    /// <summary>The settings both appenders get (log4net's defaults except where a scenario changes them).</summary>
    public sealed class Settings
    {
        public Settings(string style) => Style = style;

        public string Style { get; }

        public string MaxSize { get; set; } = "1KB";

        public int Backups { get; set; }

        public string DatePattern { get; set; } = ".yyyy-MM-dd";

        public bool StaticName { get; set; } = true;

        public bool Preserve { get; set; }

        public int CountDirection { get; set; } = -1;

        public bool Append { get; set; } = true;

        /// <summary>Under MinimalLock, as files several processes write.</summary>
        public bool Shared { get; set; }

        public string File { get; set; } = "app.log";

        public override string ToString() => Style;
    }
}
