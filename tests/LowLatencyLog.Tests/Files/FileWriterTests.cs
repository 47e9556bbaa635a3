using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using log4net.Core;
using LowLatencyLog.Files;
using LowLatencyLog.Tests.Support;
using LowLatencyLog.Text;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>The file writer and its sink on their own: opened, retried, rolled and counted without an appender in front.</summary>
public sealed class FileWriterTests
{
    private static readonly Encoding Utf8 = new UTF8Encoding(false);

    private string _folder = "";

    // The appender's lock: every call is made under it, and the retry timer takes it.
    private readonly object _gate = new object();

    private readonly Dictionary<FileWriter, Owner> _owners = new Dictionary<FileWriter, Owner>();

    [SetUp]
    public void CreateFolder() => _folder = Directory.CreateTempSubdirectory("lll-writer-").FullName;

    [TearDown]
    public void DeleteFolder() => Directory.Delete(_folder, recursive: true);

    [Test]
    public void AFirstOpenThatFails_IsRetriedAsItWasMeant_TruncatingOnce_WithOneHeaderAndOneFooter()
    {
        string path = Path.Combine(_folder, "app.log");
        File.WriteAllText(path, "from an earlier run\n");
        int opens = 0;
        var files = new TestFiles(open: (p, append) => ++opens == 1 ? throw new IOException("in use") : LogFile.Open(p, append));
        var owner = new Owner { Header = "[H]\n", Footer = "[F]\n" };
        FileWriter writer = Started(files, owner, path, append: false);

        Append(writer, "a");
        Assert.That(File.ReadAllText(path), Is.EqualTo("from an earlier run\n"), "not written before the retry");
        Assert.That(Flush(writer), Is.True, "an explicit flush retries at once");
        Append(writer, "b");
        Close(writer);

        Assert.That(owner.Errors, Is.EqualTo(new[] { $"FileOpenFailure: Could not open the file [{path}]; events are kept in memory and opening is retried." }));
        Assert.That(opens, Is.EqualTo(2));
        Assert.That(File.ReadAllText(path), Is.EqualTo("[H]\na\nb\n[F]\n"));
    }

    [Test]
    public void ASizeRollWithoutBackups_TruncatesThroughTheOpenHandle_AndTheCountIsTheEventsSinceTheRoll()
    {
        const long limit = 100;
        string path = Path.Combine(_folder, "app.log");
        int opens = 0;
        var files = new TestFiles(open: (p, append) =>
        {
            opens++;
            return LogFile.Open(p, append);
        });
        var owner = new Owner { Header = "[H]\n" };
        var rolling = new RollingPolicy(new RollingOptions { Mode = RollingMode.Size, MaxFileSize = limit, MaxSizeRollBackups = 0 }, SystemClock.Instance);
        FileWriter writer = Started(files, owner, path, append: true, rolling);

        // A size roll comes before the event that finds the file at the limit: the file then starts again with the header.
        // As in log4net, the count starts at the file's length when opened, before the header is written.
        var expected = new List<string>();
        long length = 0;
        for (int i = 0; i < 40; i++)
        {
            string text = $"event {i} " + new string('é', i % 5);
            if (length >= limit)
            {
                expected.Clear();
                length = 0;
            }

            expected.Add(text);
            length += Utf8.GetByteCount(text + "\n");
            Append(writer, text);
        }

        Assert.That(Flush(writer), Is.True);
        long counted = writer.CurrentFileLength(long.MaxValue);
        Assert.That(counted, Is.EqualTo(new FileInfo(path).Length - Utf8.GetByteCount(owner.Header)), "counted across the rolls");
        Close(writer);

        Assert.That(opens, Is.EqualTo(1), "each roll truncated the file through the handle it held");
        Assert.That(File.ReadAllText(path), Is.EqualTo("[H]\n" + string.Concat(expected.Select(e => e + "\n"))));
        Assert.That(Directory.GetFiles(_folder), Is.EqualTo(new[] { path }), "no backups");
        Assert.That(owner.Errors, Is.Empty);
    }

    [Test]
    public void ALongOutage_HoldsAtMostTheLimitInMemory_AndEachEventIsWrittenOrCountedAsDropped()
    {
        string path = Path.Combine(_folder, "app.log");
        bool blocked = true;
        var files = new TestFiles(open: (p, append) => blocked ? throw new IOException("unavailable") : LogFile.Open(p, append));
        var owner = new Owner();
        FileWriter writer = Started(files, owner, path, append: true);
        string padding = new string('p', 200);
        const int total = 120_000; // about 25 MB of text, beyond the 16 MB the buffer may hold

        for (int i = 0; i < total; i++)
        {
            Append(writer, $"event {i} {padding}");
        }

        Assert.That(writer.Buffer!.Capacity, Is.LessThanOrEqualTo(16 * 1024 * 1024));
        long dropped = writer.Buffer.DroppedEvents;
        Assert.That(dropped, Is.GreaterThan(0));
        Assert.That(owner.Errors, Has.Some.Contains($"({dropped} in all)"), "the drops are reported with their count");
        blocked = false;
        Assert.That(Flush(writer), Is.True);
        Close(writer);

        string[] lines = File.ReadAllLines(path);
        Assert.That(lines.Length + dropped, Is.EqualTo(total));
        Assert.That(lines, Is.EqualTo(Enumerable.Range(0, lines.Length).Select(i => $"event {i} {padding}")), "the first events are kept, whole and in order");
    }

    [Test]
    public void TheFileDeletedMeanwhile_IsCreatedAgainOnFlush_WithTheHeader_AndReported()
    {
        string path = Path.Combine(_folder, "app.log");
        var owner = new Owner { Header = "[H]\n" };
        FileWriter writer = Started(new TestFiles(), owner, path, append: true);
        Append(writer, "a");
        Assert.That(Flush(writer), Is.True);

        File.Delete(path);
        Append(writer, "b", batch: false); // buffered until the flush
        Assert.That(Flush(writer), Is.True);
        Close(writer);

        Assert.That(File.ReadAllText(path), Is.EqualTo("[H]\nb\n"));
        Assert.That(owner.Errors, Is.EqualTo(new[] { $"WriteFailure: The file [{path}] disappeared; creating it again." }));
    }

    private FileWriter Started(IFileSystem files, Owner owner, string path, bool append, RollingPolicy? rolling = null)
    {
        var writer = new FileWriter(files, SystemClock.Instance, owner, _gate);
        _owners[writer] = owner;
        lock (_gate)
        {
            writer.Configure(Utf8, immediateFlush: false, flushInterval: 0, rolling);
            Assert.That(writer.Start(path, path, FileSharing.Exclusive, 4096, append, rollingLock: false), Is.True);
        }

        return writer;
    }

    /// <summary>One event, through the sink as the appender hands it over: a batch of one, written out at its end (a
    /// single event stays buffered, the flush interval being 0).</summary>
    private void Append(FileWriter writer, string text, bool batch = true)
    {
        var sink = new FileSink(writer, _owners[writer]);
        lock (_gate)
        {
            if (batch)
            {
                sink.Append(new List<string> { text }, default(Lines));
            }
            else
            {
                sink.Append(text, default(Lines));
            }
        }
    }

    private bool Flush(FileWriter writer)
    {
        lock (_gate)
        {
            return writer.Flush();
        }
    }

    private void Close(FileWriter writer)
    {
        lock (_gate)
        {
            writer.Close();
        }
    }

    /// <summary>Each event a line of text.</summary>
    private readonly struct Lines : IEventRenderer<string>
    {
        public bool Accepts(in string text) => true;

        public void Render(EventBufferWriter writer, in string text) => writer.Write(text + "\n");
    }

    private sealed class Owner : IFileWriterOwner
    {
        public string? Header { get; set; }

        public string? Footer { get; set; }

        private readonly List<string> _errors = new List<string>();

        /// <summary>A copy: the writer's retry timer reports from its own thread while a test reads.</summary>
        public List<string> Errors
        {
            get
            {
                lock (_errors)
                {
                    return new List<string>(_errors);
                }
            }
        }

        public void ReportError(string message, Exception? ex = null, ErrorCode? code = null) => Add($"{code}: {message}");

        public void ReportSetting(string message) => Add("setting: " + message);

        public void ReportTimerFailure(Exception ex) => Add("timer: " + ex.Message);

        private void Add(string error)
        {
            lock (_errors)
            {
                _errors.Add(error);
            }
        }
    }
}
