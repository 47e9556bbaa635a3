using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using LowLatencyLog.KillTarget;
using NUnit.Framework;

namespace LowLatencyLog.Tests.IO;

/// <summary>
/// A child process logs continuously through a file appender (alone, rolling, or behind log4net's
/// BufferingForwardingAppender as a stand-in for an async appender) and is killed with SIGKILL at several moments:
/// every complete line in the files must be a whole event, in order, with no gap and no repeat.
/// </summary>
public sealed class FileAppenderKillTests
{
    private string _folder = "";

    [SetUp]
    public void CreateFolder() => _folder = Directory.CreateTempSubdirectory("lll-kill-appender-").FullName;

    [TearDown]
    public void DeleteFolder() => Directory.Delete(_folder, recursive: true);

    [TestCase("buffered", 1)]
    [TestCase("buffered", 40)]
    [TestCase("buffered", 250)]
    [TestCase("rolling", 5)]
    [TestCase("rolling", 300)]
    [TestCase("forwarding", 3)]
    [TestCase("forwarding", 60)]
    [TestCase("async-BoundedQueueAsyncAppender", 60)]
    [TestCase("async-HotSwapAsyncAppender", 60)]
    [TestCase("async-DisruptorAsyncAppender", 60)]
    public void KilledWhileLogging_LeavesOnlyWholeEventsInOrder(string kind, int batchesBeforeKill)
    {
        string path = Path.Combine(_folder, "app.log");
        string target = Path.Combine(AppContext.BaseDirectory, "LowLatencyLog.KillTarget.dll");
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        foreach (string argument in new[] { target, "appender", kind, path })
        {
            start.ArgumentList.Add(argument);
        }

        using var child = Process.Start(start)!;
        try
        {
            for (int i = 0; i < batchesBeforeKill; i++)
            {
                Assert.That(child.StandardOutput.ReadLine(), Does.StartWith("flushed"), "the child is logging");
            }
        }
        finally
        {
            child.Kill(); // SIGKILL: no finalizers, no flush, no exit hooks
            Assert.That(child.WaitForExit(30_000), Is.True);
        }

        // Oldest first: numbered backups (counting up), then the current file.
        List<string> files = Directory.GetFiles(_folder, "app.log.*")
            .Where(f => f != path)
            .OrderBy(f => int.Parse(Path.GetExtension(f).TrimStart('.')))
            .Append(path)
            .ToList();
        long sequence = 0;
        for (int f = 0; f < files.Count; f++)
        {
            byte[] bytes = File.ReadAllBytes(files[f]);
            int completeLength = Array.LastIndexOf(bytes, (byte)'\n') + 1;
            string[] lines = new UTF8Encoding(false, throwOnInvalidBytes: true).GetString(bytes, 0, completeLength).Split('\n');
            foreach (string line in lines.Take(lines.Length - 1))
            {
                if (line + "\n" != Program.EventText(sequence))
                {
                    Assert.Fail($"{Path.GetFileName(files[f])}: line '{line}' is not whole event {sequence}");
                }

                sequence++;
            }

            byte[] fragment = bytes[completeLength..];
            if (fragment.Length > 0)
            {
                Assert.That(f, Is.EqualTo(files.Count - 1), "only the file being written can end mid-event");
                byte[] next = Encoding.UTF8.GetBytes(Program.EventText(sequence));
                Assert.That(next.Take(fragment.Length), Is.EqualTo(fragment), "the fragment is the start of the next event");
                Assert.That(bytes.Length % Environment.SystemPageSize, Is.Zero, "a fragment only where the kernel cut a write at a page boundary");
            }
        }

        Assert.That(sequence, Is.GreaterThanOrEqualTo(batchesBeforeKill), "at least one event per batch reached the file");
        if (kind == "rolling" && batchesBeforeKill > 100)
        {
            Assert.That(files.Count, Is.GreaterThan(1), "the file rolled");
        }
    }
}
