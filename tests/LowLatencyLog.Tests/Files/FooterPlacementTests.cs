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

/// <summary>The layout's footer ends the file it closes, and only that file, even when the roll's closing write fails.</summary>
public sealed class FooterPlacementTests
{
    [Test]
    public void ARollWhoseClosingWriteFails_LeavesTheFooterOutOfTheNextFile()
    {
        string folder = Directory.CreateTempSubdirectory("lll-footer-").FullName;
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
                appender.DoAppend(new LoggingEvent(typeof(FooterPlacementTests), null, "App", Level.Info, $"event {i} " + new string('x', 60), null));
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
}
