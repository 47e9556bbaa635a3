using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using System.Threading.Tasks;
using LowLatencyLog.KillTarget;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

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
    // The child's calls are intercepted: the async cases again on log4net's path (the others have no fast path).
    [TestCase("async-BoundedQueueAsyncAppender", 60, false)]
    [TestCase("async-HotSwapAsyncAppender", 60, false)]
    [TestCase("async-DisruptorAsyncAppender", 60, false)]
    public void KilledWhileLogging_LeavesOnlyWholeEventsInOrder(string kind, int batchesBeforeKill, bool fastPath = true)
    {
        if (!fastPath && !FastPath.InThisBuild)
        {
            Assert.Ignore("The library under test has no fast path: the same case asking for it ran log4net's path.");
        }

        string path = Path.Combine(_folder, "app.log");
        RunAndKill(kind, path, batchesBeforeKill, delayTicks: 0, fastPath);
        long events = AssertWholeEventsInOrder(_folder, path, out int files);

        Assert.That(events, Is.GreaterThanOrEqualTo(batchesBeforeKill), "at least one event per batch reached the file");
        if (kind == "rolling" && batchesBeforeKill > 100)
        {
            Assert.That(files, Is.GreaterThan(1), "the file rolled");
        }
    }

    /// <summary>
    /// Two hundred kills at random points of a process whose file rolls every few batches: each lands before,
    /// during or after a roll (renaming backups, opening the next file, writing into it), and every file left behind
    /// holds whole events only, with none lost or repeated before the kill.
    /// </summary>
    [Test]
    public void TwoHundredKillsAtRandomPointsAcrossRolls_LeaveOnlyWholeEventsInOrder()
    {
        const int kills = 200;
        var random = new Random(20261127);
        // From batch 20 on (210 events, about 32 KB): every run has rolled at least once before it is killed.
        var points = Enumerable.Range(0, kills).Select(_ => (Batches: random.Next(20, 70), Delay: random.Next(0, 20_000))).ToArray();
        int rolledRuns = 0;
        Parallel.For(0, kills, new ParallelOptions { MaxDegreeOfParallelism = 4 }, i =>
        {
            string folder = Path.Combine(_folder, "run" + i);
            Directory.CreateDirectory(folder);
            string path = Path.Combine(folder, "app.log");
            RunAndKill("rolling-small", path, points[i].Batches, points[i].Delay);
            long events = AssertWholeEventsInOrder(folder, path, out int files);
            Assert.That(events, Is.GreaterThanOrEqualTo(points[i].Batches), $"kill {i}: at least one event per batch reached the files");
            if (files > 1)
            {
                Interlocked.Increment(ref rolledRuns);
            }
        });

        Assert.That(rolledRuns, Is.EqualTo(kills), "every kill came after at least one roll");
    }

    /// <summary>Starts the child, waits for <paramref name="batches"/> flushed batches and a little more, and kills it.</summary>
    private static void RunAndKill(string kind, string path, int batches, int delayTicks, bool fastPath = true)
    {
        string target = Path.Combine(AppContext.BaseDirectory, "LowLatencyLog.KillTarget.dll");
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        start.Environment["LLL_FAST_PATH"] = fastPath ? "true" : "false";
        foreach (string argument in new[] { target, "appender", kind, path })
        {
            start.ArgumentList.Add(argument);
        }

        using var child = Process.Start(start)!;
        try
        {
            if (kind.StartsWith("async-", StringComparison.Ordinal))
            {
                FastPath.AssertChildTook(child.StandardOutput.ReadLine(), fastPath);
            }

            for (int i = 0; i < batches; i++)
            {
                Assert.That(child.StandardOutput.ReadLine(), Does.StartWith("flushed"), "the child is logging");
            }

            // Somewhere inside the next batches: a random point of the write, roll or open that follows.
            long until = Stopwatch.GetTimestamp() + delayTicks * Stopwatch.Frequency / 10_000_000;
            while (Stopwatch.GetTimestamp() < until)
            {
            }
        }
        finally
        {
            child.Kill(); // SIGKILL: no finalizers, no flush, no exit hooks
            Assert.That(child.WaitForExit(30_000), Is.True);
        }
    }

    /// <summary>
    /// Reads the backups (numbered upwards) and then the current file: every complete line is the next event, and only
    /// the file being written may end with a fragment, the start of the next event cut at a page boundary.
    /// </summary>
    /// <returns>The number of whole events found.</returns>
    private static long AssertWholeEventsInOrder(string folder, string path, out int fileCount)
    {
        // A kill between a roll's two moves leaves the rolled file under its interim name: the newest backup.
        List<string> files = Directory.GetFiles(folder, "app.log.*")
            .Where(f => f != path && !f.EndsWith(".rolling", StringComparison.Ordinal))
            .OrderBy(f => int.Parse(Path.GetExtension(f).TrimStart('.')))
            .Append(path + ".rolling")
            .Append(path)
            .Where(File.Exists)
            .ToList();
        fileCount = files.Count;
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

        return sequence;
    }
}
