using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using LowLatencyLog.KillTarget;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// A process writing through <see cref="LowLatencyLog.Text.EventBufferWriter"/> is killed (SIGKILL on Linux) at several
/// moments; every complete line in the file must be a whole event, in order.
/// </summary>
public sealed class KillSafetyTests
{
    private string _folder = "";

    [SetUp]
    public void CreateFolder() => _folder = Directory.CreateTempSubdirectory("lowlatencylog-kill-").FullName;

    [TearDown]
    public void DeleteFolder() => Directory.Delete(_folder, recursive: true);

    [TestCase(1)]
    [TestCase(7)]
    [TestCase(40)]
    [TestCase(250)]
    public void KilledWhileWriting_LeavesOnlyWholeEvents(int batchesBeforeKill)
    {
        string path = Path.Combine(_folder, "kill.log");
        string target = Path.Combine(AppContext.BaseDirectory, "LowLatencyLog.KillTarget.dll");
        var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
        start.ArgumentList.Add(target);
        start.ArgumentList.Add(path);
        using var child = Process.Start(start)!;
        try
        {
            for (int i = 0; i < batchesBeforeKill; i++)
            {
                Assert.That(child.StandardOutput.ReadLine(), Does.StartWith("flushed"), "the child is writing");
            }
        }
        finally
        {
            child.Kill(); // SIGKILL: no finalizers, no flush, no exit hooks
            Assert.That(child.WaitForExit(30_000), Is.True);
        }

        byte[] bytes = File.ReadAllBytes(path);
        Assert.That(bytes, Is.Not.Empty);
        int completeLength = Array.LastIndexOf(bytes, (byte)'\n') + 1;
        string[] lines = new UTF8Encoding(false, throwOnInvalidBytes: true).GetString(bytes, 0, completeLength).Split('\n');
        for (long sequence = 0; sequence < lines.Length - 1; sequence++)
        {
            if (lines[sequence] + "\n" != Program.EventText(sequence))
            {
                Assert.Fail($"line {sequence} is not whole event {sequence}: '{lines[sequence]}'");
            }
        }

        // The writer hands the kernel whole events only, but Linux may cut a write that spans pages when SIGKILL
        // arrives during it (it checks for fatal signals between pages). Then, and only then, the file ends with a
        // prefix of the next event, exactly at a page boundary.
        byte[] fragment = bytes[completeLength..]; // raw bytes: a cut may split a character
        if (fragment.Length > 0)
        {
            byte[] next = Encoding.UTF8.GetBytes(Program.EventText(lines.Length - 1));
            Assert.That(next.Take(fragment.Length), Is.EqualTo(fragment), "the fragment is the start of the next event");
            Assert.That(bytes.Length % Environment.SystemPageSize, Is.Zero, "a fragment only where the kernel cut a write at a page boundary");
        }

        Assert.That(lines.Length - 1, Is.GreaterThanOrEqualTo(batchesBeforeKill), "at least one event per batch reached the file");
    }
}
