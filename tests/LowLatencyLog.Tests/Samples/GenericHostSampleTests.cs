using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Samples;

/// <summary>
/// <c>samples/GenericHost</c> run as the user runs it (<c>dotnet GenericHost.dll</c>) in a child process: it exits by
/// itself with code 0 once the host stops, its file holds every event the worker logged (in order per thread) and the
/// host's own lifetime messages up to "Application is shutting down", and log4net reports no internal error.
/// </summary>
public sealed class GenericHostSampleTests
{
    private const int PerThread = 5_000;
    private const int Threads = 4; // GenericHost.Worker.Threads

    [Test]
    public void GenericHost_ShutsDownWithTheHost_AndTheFileHoldsEveryEvent()
    {
        string dll = SampleDll();
        string dir = Path.Combine(Path.GetTempPath(), "lll-generichost-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(dir);
        try
        {
            string logFile = Path.Combine(dir, "GenericHost.log");
            var start = new ProcessStartInfo("dotnet")
            {
                RedirectStandardOutput = true,
                RedirectStandardError = true,
                UseShellExecute = false,
                WorkingDirectory = dir,
            };
            foreach (string argument in new[] { dll, PerThread.ToString(), logFile })
            {
                start.ArgumentList.Add(argument);
            }

            using var child = Process.Start(start)!;
            var stderr = child.StandardError.ReadToEndAsync();
            string stdout = child.StandardOutput.ReadToEnd();
            Assert.That(child.WaitForExit(TimeSpan.FromMinutes(2)), Is.True, "the app exits when the host stops");
            Assert.That(child.ExitCode, Is.EqualTo(0), stdout + stderr.Result);
            Assert.That(stderr.Result, Does.Not.Contain("log4net:ERROR"));
            Assert.That(stdout, Does.Contain($"{Threads * PerThread} events logged"));

            string[] lines = File.ReadAllLines(logFile);
            // The scope's values, captured on the logging thread: each line carries its own order id and a trace id.
            var eventLine = new Regex(@" INFO  GenericHost\.Worker \[(\d+)-(\d+) ([0-9a-f]{32})\] - worker (\d) event (\d+)$");
            var next = new int[Threads];
            var traces = new HashSet<string>();
            foreach (Match match in lines.Select(l => eventLine.Match(l)).Where(m => m.Success))
            {
                int thread = int.Parse(match.Groups[4].Value);
                int index = int.Parse(match.Groups[5].Value);
                Assert.That(index, Is.EqualTo(next[thread]), $"worker {thread} in order, none missing");
                Assert.That((match.Groups[1].Value, match.Groups[2].Value), Is.EqualTo((thread.ToString(), index.ToString())), "the scope of that very event");
                Assert.That(traces.Add(match.Groups[3].Value), Is.True, "a trace id of its own");
                next[thread]++;
            }

            Assert.That(next, Is.All.EqualTo(PerThread), "every event on disk");
            Assert.That(lines, Has.Some.EndsWith("GenericHost.Worker [(null) (null)] - worker done"), "outside the scope the properties are missing, as log4net writes them");
            Assert.That(lines, Has.Some.Contains("Microsoft.Hosting.Lifetime [(null) (null)] - Application started"));
            Assert.That(lines.Last(), Does.EndWith("Microsoft.Hosting.Lifetime [(null) (null)] - Application is shutting down..."),
                "the host's last message is written: log4net shuts down after the host");
        }
        finally
        {
            try
            {
                Directory.Delete(dir, recursive: true);
            }
            catch (IOException)
            {
            }
        }
    }

    // The sample's own output folder (same configuration as the tests), so it runs with its own deps.json.
    private static string SampleDll()
    {
#if DEBUG
        const string configuration = "Debug";
#else
        const string configuration = "Release";
#endif
        DirectoryInfo? root = new DirectoryInfo(AppContext.BaseDirectory);
        while (root != null && !File.Exists(Path.Combine(root.FullName, "LowLatencyLog.sln")))
        {
            root = root.Parent;
        }

        Assert.That(root, Is.Not.Null, "repository root above " + AppContext.BaseDirectory);
        string dll = Path.Combine(root!.FullName, "samples", "GenericHost", "bin", configuration, "net10.0", "GenericHost.dll");
        Assert.That(File.Exists(dll), Is.True, dll + " is built with the tests");
        return dll;
    }
}
