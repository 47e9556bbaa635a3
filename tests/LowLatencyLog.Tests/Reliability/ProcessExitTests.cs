using System;
using System.Diagnostics;
using System.IO;
using System.Linq;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Reliability;

/// <summary>
/// An application that logs from several threads and returns from Main without calling <c>LogManager.Shutdown()</c>:
/// log4net's process-exit hook closes the appenders, and every event must be in the file. A child process per case.
/// </summary>
public sealed class ProcessExitTests
{
    private static readonly string[] FileKinds = { "BufferedFileAppender", "RollingBufferedFileAppender", "log4net" };

    // The child process's calls are intercepted: each case runs on the fast path (SPEC 22) and on log4net's path, where
    // the library under test has a fast path (the netstandard2.0 build has none: one run covers it).
    private static readonly bool[] FastPaths = LibraryBuild.IsNetCore ? new[] { true, false } : new[] { true };

    public static TestCaseData[] Cases() =>
        (from kind in AsyncAppenderKind.All
         from file in FileKinds
         from fast in FastPaths
         select new TestCaseData(kind.TypeName, file, fast).SetName($"{kind.TypeName} -> {file}{Which(fast)}")).ToArray();

    /// <summary>Async 16: the process dies of an unhandled exception on another thread right after logging; the
    /// crash handler delivers and flushes what the appenders held, so every event logged before the crash is in the
    /// file.</summary>
    [TestCaseSource(nameof(CrashCases))]
    public void UnhandledExceptionRightAfterLogging_EveryEventLoggedBeforeIsOnDisk(string asyncType, string fileKind, bool fastPath)
    {
        string folder = Directory.CreateTempSubdirectory("lll-crash-").FullName;
        try
        {
            string path = Path.Combine(folder, "app.log");
            var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, RedirectStandardError = true, UseShellExecute = false };
            start.Environment["LLL_FAST_PATH"] = fastPath ? "true" : "false";
            foreach (string argument in new[] { Path.Combine(AppContext.BaseDirectory, "LowLatencyLog.KillTarget.dll"), "crash", asyncType, fileKind, path })
            {
                start.ArgumentList.Add(argument);
            }

            using var child = Process.Start(start)!;
            var errors = child.StandardError.ReadToEndAsync();
            string output = child.StandardOutput.ReadToEnd();
            Assert.That(child.WaitForExit(60_000), Is.True);
            Assert.That(child.ExitCode, Is.Not.Zero, "the process died of the exception");
            Assert.That(errors.Result, Does.Contain("the application's own bug"));
            FastPath.AssertChildTook(output.Split('\n')[0], fastPath);
            long logged = long.Parse(output.Split('\n').Single(l => l.StartsWith("logged ", StringComparison.Ordinal)).Substring(7));

            string[] lines = File.ReadAllLines(path);
            Assert.That(lines, Has.Length.EqualTo(logged), "the crash handler delivered and flushed everything");
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }

    public static TestCaseData[] CrashCases() =>
        (from kind in AsyncAppenderKind.All
         from file in new[] { "BufferedFileAppender", "RollingBufferedFileAppender" }
         from fast in FastPaths
         select new TestCaseData(kind.TypeName, file, fast).SetName($"crash: {kind.TypeName} -> {file}{Which(fast)}")).ToArray();

    private static string Which(bool fast) => fast ? "" : ", log4net's path";

    [TestCaseSource(nameof(Cases))]
    public void ReturnFromMainWithoutShutdown_EveryEventIsOnDisk(string asyncType, string fileKind, bool fastPath)
    {
        string folder = Directory.CreateTempSubdirectory("lll-exit-").FullName;
        try
        {
            string path = Path.Combine(folder, "app.log");
            var start = new ProcessStartInfo("dotnet") { RedirectStandardOutput = true, UseShellExecute = false };
            start.Environment["LLL_FAST_PATH"] = fastPath ? "true" : "false";
            foreach (string argument in new[] { Path.Combine(AppContext.BaseDirectory, "LowLatencyLog.KillTarget.dll"), "exit", asyncType, fileKind, path })
            {
                start.ArgumentList.Add(argument);
            }

            using var child = Process.Start(start)!;
            string output = child.StandardOutput.ReadToEnd();
            Assert.That(child.WaitForExit(60_000), Is.True, "the process exits: no thread of ours keeps it alive");
            Assert.That(child.ExitCode, Is.Zero);
            FastPath.AssertChildTook(output.Split('\n')[0], fastPath);
            long logged = long.Parse(output.Split('\n').Single(l => l.StartsWith("logged ", StringComparison.Ordinal)).Substring(7));

            string[] lines = File.ReadAllLines(path);
            Assert.That(lines, Has.Length.EqualTo(logged), "log4net's exit hook drained everything to the file");
            Assert.That(lines.Distinct().Count(), Is.EqualTo(lines.Length), "no event twice");
        }
        finally
        {
            Directory.Delete(folder, recursive: true);
        }
    }
}
