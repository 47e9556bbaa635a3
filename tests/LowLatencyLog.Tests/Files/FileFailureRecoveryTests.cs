using System;
using System.IO;
using System.Linq;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;
using static LowLatencyLog.Tests.Support.FileAppenderTesting;

namespace LowLatencyLog.Tests.Files;

/// <summary>A file that cannot be written, opened, or is deleted, replaced or cut short under the appender: reported, never thrown, and written on.</summary>
public sealed class FileFailureRecoveryTests
{
    private string _folder = "";

    [SetUp]
    public void CreateFolder() => _folder = Directory.CreateTempSubdirectory("lll-file-").FullName;

    [TearDown]
    public void DeleteFolder() => Directory.Delete(_folder, recursive: true);

    [Test]
    public void AWriteFailure_IsReportedNotThrown_AndTheRetryWritesEveryLineOnce()
    {
        string path = Path.Combine(_folder, "app.log");
        FaultyFileStream? stream = null;
        var errors = new RecordingErrorHandler();
        var appender = new BufferedFileAppender(new TestFiles(open: (p, append) => stream = new FaultyFileStream(p, append)))
        {
            File = path, FlushInterval = "0", ErrorHandler = errors,
        };
        Activate(appender);

        appender.DoAppend(Events(0, 10));
        stream!.Fail = true; // the disk is full: half of the next write lands, then it throws
        Assert.DoesNotThrow(() => appender.DoAppend(Events(10, 10)));
        Assert.DoesNotThrow(() => appender.DoAppend(Events(20, 1)[0]));
        Assert.That(appender.Flush(1000), Is.False, "flush tells the truth");
        Assert.That(errors.Errors, Has.Some.Contains("WriteFailure").And.Some.Contains("No space left"));

        stream.Fail = false;
        appender.DoAppend(Events(21, 5));
        Assert.That(appender.Flush(1000), Is.True);
        appender.Close();
        Assert.That(File.ReadAllLines(path), Is.EqualTo(Enumerable.Range(0, 26).Select(EventText)), "no line lost, torn or duplicated");
    }

    [Test]
    public void AFolderThatCannotBeCreated_IsReported_AndTheBufferedEventsGoOutOnceItCan()
    {
        string blocker = Path.Combine(_folder, "logs");
        File.WriteAllText(blocker, "a file where the folder should be");
        string path = Path.Combine(blocker, "app.log");
        var errors = new RecordingErrorHandler();
        BufferedFileAppender appender = Activate(new BufferedFileAppender { File = path, FlushInterval = "0", ErrorHandler = errors });
        Assert.That(errors.Errors, Has.Some.Contains("FileOpenFailure"));

        Assert.DoesNotThrow(() => appender.DoAppend(Events(0, 3)));
        Assert.That(appender.Flush(1000), Is.False);
        File.Delete(blocker);
        appender.DoAppend(Events(3, 2));
        Assert.That(appender.Flush(1000), Is.True);
        appender.Close();
        Assert.That(File.ReadAllLines(path), Is.EqualTo(Enumerable.Range(0, 5).Select(EventText)));
    }

    [Test]
    public void TheFileDeletedUnderTheAppender_IsCreatedAgain()
    {
        string path = Path.Combine(_folder, "app.log");
        var errors = new RecordingErrorHandler();
        var layout = new PatternLayout("%message%newline") { Header = "[H]\n" };
        layout.ActivateOptions();
        BufferedFileAppender appender = Activate(new BufferedFileAppender { File = path, FlushInterval = "0", ErrorHandler = errors, Layout = layout });
        appender.DoAppend(Events(0, 2));
        File.Delete(path);

        appender.DoAppend(Events(2, 1)[0]);
        Assert.That(appender.Flush(1000), Is.True);
        Assert.That(ReadShared(path), Is.EqualTo("[H]\n" + EventText(2) + "\n"));
        Assert.That(errors.Errors, Has.Some.Contains("disappeared"));
        appender.Close();
    }

    [Test]
    public void TheFileReplacedUnderTheAppender_TheNextEventsGoToTheFileNowAtThePath()
    {
        string path = Path.Combine(_folder, "app.log");
        var errors = new RecordingErrorHandler();
        BufferedFileAppender appender = Activate(new BufferedFileAppender { File = path, FlushInterval = "0", ErrorHandler = errors });
        appender.DoAppend(Events(0, 2));
        File.Move(path, path + ".old"); // a tool that replaces the file: the old one moved away, a new one in its place
        File.WriteAllText(path, "put there by another program\n");

        appender.DoAppend(Events(2, 1)[0]);
        Assert.That(appender.Flush(1000), Is.True);
        Assert.That(ReadShared(path), Is.EqualTo("put there by another program\n" + EventText(2) + "\n"));
        Assert.That(ReadShared(path + ".old"), Is.EqualTo(EventText(0) + "\n" + EventText(1) + "\n"));
        Assert.That(errors.Errors, Has.Some.Contains("was replaced"));
        appender.Close();
    }

    [Test]
    public void TheFileCutShortInPlace_TheNextEventsGoToItsNewEnd()
    {
        string path = Path.Combine(_folder, "app.log");
        var errors = new RecordingErrorHandler();
        BufferedFileAppender appender = Activate(new BufferedFileAppender { File = path, FlushInterval = "0", ErrorHandler = errors });
        appender.DoAppend(Events(0, 2));
        using (var truncate = new FileStream(path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete))
        {
            truncate.SetLength(0); // a rotation by copy and truncate
        }

        appender.DoAppend(Events(2, 1)[0]);
        Assert.That(appender.Flush(1000), Is.True);
        Assert.That(ReadShared(path), Is.EqualTo(EventText(2) + "\n"), "no gap of zero bytes where the old lines were");
        Assert.That(errors.Errors, Has.Some.Contains("cut short"));
        appender.Close();
    }

    /// <summary>A real file whose writes can be made to fail half-way, as on a full disk.</summary>
    private sealed class FaultyFileStream : FileStream
    {
        public FaultyFileStream(string path, bool append)
            : base(path, append ? FileMode.OpenOrCreate : FileMode.Create, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete, 1)
        {
            if (append)
            {
                Seek(0, SeekOrigin.End);
            }
        }

        public bool Fail { get; set; }

        public override void Write(byte[] array, int offset, int count)
        {
            if (Fail)
            {
                base.Write(array, offset, count / 2);
                throw new IOException("No space left on device");
            }

            base.Write(array, offset, count);
        }
    }
}
