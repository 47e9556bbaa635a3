using System;
using System.IO;
using System.Linq;
using System.Threading;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Files;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Reliability;

/// <summary>Smaller findings of the reliability review, each shown by the behaviour it fixes.</summary>
public sealed class ReviewNitTests
{
    [Test]
    public void AppendToFileFalse_WhoseFirstOpenFails_StillTruncatesWhenTheRetrySucceeds()
    {
        string folder = Directory.CreateTempSubdirectory("lll-nit-").FullName;
        try
        {
            string path = Path.Combine(folder, "app.log");
            File.WriteAllText(path, "from the previous run\n");
            int opens = 0;
            var layout = new PatternLayout("%message%newline") { Header = "[Header]\n" };
            layout.ActivateOptions();
            // The first open fails (the previous instance still holds the file), the retries work.
            var appender = new BufferedFileAppender(new TestFiles(open: (p, append) => ++opens == 1 ? throw new IOException("in use") : LogFile.Open(p, append)))
            {
                Name = "truncating",
                File = path,
                AppendToFile = "false",
                ImmediateFlush = "true",
                Layout = layout,
                ErrorHandler = new RecordingErrorHandler(),
            };
            appender.ActivateOptions();
            appender.DoAppend(new LoggingEvent(typeof(ReviewNitTests), null, "App", Level.Info, "this run", null));
            appender.Flush(1000);
            appender.Close();

            Assert.That(File.ReadAllText(path), Is.EqualTo("[Header]\nthis run\n"), "truncated, with the header, as the first open meant");
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Test]
    public void ARollWhoseClosingWriteFails_LeavesTheFooterOutOfTheNextFile()
    {
        string folder = Directory.CreateTempSubdirectory("lll-nit-").FullName;
        try
        {
            string path = Path.Combine(folder, "app.log");
            var layout = new PatternLayout("%message%newline") { Header = "[H]\n", Footer = "[F]\n" };
            layout.ActivateOptions();
            FailingStream? first = null;
            var appender = new RollingBufferedFileAppender(new TestFiles(open: (p, append) => first == null ? first = new FailingStream(p, append) : LogFile.Open(p, append)), SystemClock.Instance)
            {
                File = path,
                RollingStyle = "Size",
                MaximumFileSize = "1KB",
                MaxSizeRollBackups = "3",
                FlushInterval = "0",
                Layout = layout,
                ErrorHandler = new RecordingErrorHandler(),
            };
            appender.ActivateOptions();
            first!.Fail = true; // the disk is full when the size roll closes the first file
            for (int i = 0; i < 30; i++)
            {
                appender.DoAppend(new LoggingEvent(typeof(ReviewNitTests), null, "App", Level.Info, $"event {i} " + new string('x', 60), null));
            }

            appender.Close();

            string[] files = Directory.GetFiles(folder);
            Assert.That(files, Has.Length.GreaterThan(2), "the file rolled after the failure");
            foreach (string file in files)
            {
                string text = File.ReadAllText(file);
                int footer = text.IndexOf("[F]", StringComparison.Ordinal);
                Assert.That(footer < 0 || footer == text.Length - 4, Is.True, $"{Path.GetFileName(file)}: a footer only at the end:\n{text}");
            }

            Assert.That(string.Concat(files.Select(File.ReadAllText)).Split('\n').Count(l => l.StartsWith("event ", StringComparison.Ordinal)), Is.EqualTo(30));
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    [Test]
    public void ActivatedAgainWhileTheFileCannotBeOpened_ReportsTheBufferedEventsAsLost()
    {
        var errors = new RecordingErrorHandler();
        var appender = new BufferedFileAppender(new TestFiles(open: (p, append) => throw new IOException("Permission denied")))
        {
            File = Path.Combine(Path.GetTempPath(), "lll-never-opened.log"),
            Layout = new PatternLayout("%message%newline"),
            ErrorHandler = errors,
        };
        appender.ActivateOptions();
        appender.DoAppend(new LoggingEvent(typeof(ReviewNitTests), null, "App", Level.Info, "held in memory", null));
        appender.ActivateOptions();
        appender.Close();

        Assert.That(errors.Errors.Count(e => e.Contains("are lost")), Is.EqualTo(1), string.Join("\n", errors.Errors));
    }

    /// <summary>A file whose writes fail while <see cref="Fail"/> is set, writing nothing.</summary>
    private sealed class FailingStream : FileStream
    {
        public FailingStream(string path, bool append)
            : base(path, append ? FileMode.Append : FileMode.Create, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete, 1)
        {
        }

        public bool Fail { get; set; }

        public override void Write(byte[] array, int offset, int count)
        {
            if (Fail)
            {
                throw new IOException("No space left on device");
            }

            base.Write(array, offset, count);
        }
    }

    [Test]
    public void AnApplicationThreadInterruptedWhileItWaitsForRoom_KeepsItsInterrupt()
    {
        var child = new RecordingAppender { Name = "child" };
        child.ActivateOptions();
        child.Hold(); // the worker blocks in the child: the buffer fills and the producer waits
        var async = new BoundedQueueAsyncAppender { Name = "async", BufferSize = "1", ShutdownTimeout = "60000" };
        async.AddAppender(child);
        async.ActivateOptions();

        bool interruptSeenLater = false;
        var producer = new Thread(() =>
        {
            for (int i = 0; i < 20; i++)
            {
                async.DoAppend(new LoggingEvent(typeof(ReviewNitTests), null, "App", Level.Info, "e" + i, null));
            }

            try
            {
                Thread.Sleep(10_000);
            }
            catch (ThreadInterruptedException)
            {
                interruptSeenLater = true; // the application's own wait still sees the interrupt
            }
        }) { IsBackground = true };
        producer.Start();
        Assert.That(SpinWait.SpinUntil(() => (producer.ThreadState & ThreadState.WaitSleepJoin) != 0, 10_000), Is.True);
        producer.Interrupt();
        Assert.That(producer.Join(TimeSpan.FromSeconds(30)), Is.True);
        child.Open();
        async.Close();
        Assert.That(interruptSeenLater, Is.True);
    }
}
