using System;
using System.IO;
using System.Threading;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.IO;
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
            var appender = new BufferedFileAppender
            {
                Name = "truncating",
                File = path,
                AppendToFile = "false",
                ImmediateFlush = "true",
                Layout = layout,
                ErrorHandler = new RecordingErrorHandler(),
                // The first open fails (the previous instance still holds the file), the retries work.
                OpenStream = (p, append) => ++opens == 1 ? throw new IOException("in use") : LogFile.Open(p, append),
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
