using System;
using System.Collections.Generic;
using System.IO;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Files;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// File 8 (docs/behaviours.md): a write that fails midway (a full disk takes part of the batch, then refuses the rest) leaves no
/// torn and no duplicated event in any file, also across a roll, once the disk has room again.
/// </summary>
public sealed class DiskFullTests
{
    [Test]
    public void AWriteThatFailsHalfWay_ThenARoll_ThenRoom_LeavesEveryEventOnceAndEveryFileWhole()
    {
        string folder = Directory.CreateTempSubdirectory("lll-disk-full-").FullName;
        try
        {
            var streams = new List<HalfWritingStream>();
            var layout = new PatternLayout("%message%newline");
            layout.ActivateOptions();
            var appender = new RollingBufferedFileAppender(new TestFiles(open: (path, append) =>
                {
                    var stream = new HalfWritingStream(LogFile.Open(path, append)) { Full = streams.Count > 0 && streams[^1].Full };
                    streams.Add(stream);
                    return stream;
                }), SystemClock.Instance)
            {
                Name = "full",
                File = Path.Combine(folder, "app.log"),
                Layout = layout,
                RollingStyle = "Size",
                MaximumFileSize = "4KB",
                MaxSizeRollBackups = "10",
                ImmediateFlush = "true",
                ErrorHandler = new RecordingErrorHandler(),
            };
            appender.ActivateOptions();
            int next = 0;
            void Log(int count)
            {
                for (int i = 0; i < count; i++, next++)
                {
                    appender.DoAppend(new LoggingEvent(typeof(DiskFullTests), null, "App", Level.Info, $"event {next:D4} " + new string('x', 90), null));
                }
            }

            Log(20);
            streams[^1].Full = true; // the disk fills up: each write lands half its bytes, then fails
            Log(40); // past 4 KB: a roll is due while the disk is full
            foreach (HalfWritingStream stream in streams)
            {
                stream.Full = false; // room again
            }

            Log(20);
            appender.Close();

            var seen = new HashSet<string>();
            foreach (string file in Directory.GetFiles(folder))
            {
                byte[] bytes = File.ReadAllBytes(file);
                Assert.That(bytes.Length == 0 || bytes[^1] == (byte)'\n', Is.True, $"{Path.GetFileName(file)} ends with a whole line");
                foreach (string line in File.ReadAllLines(file))
                {
                    Assert.That(line, Does.Match(@"^event \d{4} x{90}$"), $"{Path.GetFileName(file)}: a whole event");
                    Assert.That(seen.Add(line), Is.True, $"{line.Substring(0, 10)} is written once");
                }
            }

            Assert.That(seen.Count, Is.GreaterThanOrEqualTo(40), "what was written before and after the outage is there");
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    /// <summary>A file stream that, while <see cref="Full"/>, writes the first half of each write and then fails as a
    /// full disk does.</summary>
    private sealed class HalfWritingStream : Stream
    {
        private readonly Stream _inner;

        public HalfWritingStream(Stream inner) => _inner = inner;

        public bool Full { get; set; }

        public override bool CanRead => false;

        public override bool CanSeek => _inner.CanSeek;

        public override bool CanWrite => true;

        public override long Length => _inner.Length;

        public override long Position { get => _inner.Position; set => _inner.Position = value; }

        public override void Write(byte[] buffer, int offset, int count)
        {
            if (Full)
            {
                _inner.Write(buffer, offset, count / 2);
                _inner.Flush();
                throw new IOException("No space left on device");
            }

            _inner.Write(buffer, offset, count);
        }

        public override void Flush() => _inner.Flush();

        public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

        public override long Seek(long offset, SeekOrigin origin) => _inner.Seek(offset, origin);

        public override void SetLength(long value) => _inner.SetLength(value);

        protected override void Dispose(bool disposing)
        {
            if (disposing)
            {
                _inner.Dispose();
            }

            base.Dispose(disposing);
        }
    }
}
