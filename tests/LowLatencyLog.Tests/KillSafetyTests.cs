using System;
using System.Diagnostics;
using System.IO;
using System.Text;
using LowLatencyLog.KillTarget;
using NUnit.Framework;

namespace LowLatencyLog.Tests;

/// <summary>
/// A process writing through <see cref="LowLatencyLog.IO.EventBufferWriter"/> is killed (SIGKILL on Linux) at several
/// moments; the file must hold only whole events, in order, and end where an event ended.
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

        string text = File.ReadAllText(path, new UTF8Encoding(false, throwOnInvalidBytes: true));
        Assert.That(text, Is.Not.Empty);
        Assert.That(text, Does.EndWith("\n"), "the file ends where an event ended");
        string[] lines = text.Split('\n');
        Assert.That(lines[^1], Is.Empty);
        for (long sequence = 0; sequence < lines.Length - 1; sequence++)
        {
            if (lines[sequence] + "\n" != Program.EventText(sequence))
            {
                Assert.Fail($"line {sequence} is not whole event {sequence}: '{lines[sequence]}'");
            }
        }

        Assert.That(lines.Length - 1, Is.GreaterThanOrEqualTo(batchesBeforeKill), "at least one event per batch reached the file");
    }
}
