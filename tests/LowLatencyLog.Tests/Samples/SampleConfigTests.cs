using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using System.Threading;
using log4net.Core;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Samples;

/// <summary>
/// Every config under <c>samples/Configs</c> and <c>samples/Migration</c>, loaded as shipped (the test project copies
/// them next to the tests), with <c>LOWLATENCYLOG_SAMPLE_DIR</c> pointing at a temp folder: after a few threads log and
/// the repository shuts down, the files each sample promises hold every event they should, in order per thread, and
/// log4net reports no internal error.
/// </summary>
[NonParallelizable] // The sample configs read an environment variable, which is process-wide.
public sealed class SampleConfigTests
{
    private const string DirVariable = "LOWLATENCYLOG_SAMPLE_DIR";
    private const int Producers = 4;
    private const int PerProducer = 5_000;
    private const string DiscardReport = "event(s) were discarded";

    private static readonly string ConfigsFolder = Path.Combine(AppContext.BaseDirectory, "SampleConfigs");
    private static readonly string MigrationFolder = Path.Combine(AppContext.BaseDirectory, "SampleMigration");

    // What a sample promises beyond the default, which is "<name>.log holds every event at INFO or above".
    private static readonly Dictionary<string, Promise[]> Promises = new Dictionary<string, Promise[]>
    {
        ["AsyncToSeveralChildren"] = new[]
        {
            new Promise("AsyncToSeveralChildren.log", Level.Info),
            new Promise("AsyncToSeveralChildren.errors.log", Level.Warn),
        },
        ["RollingBufferedFileAppender"] = new[] { new Promise("RollingBufferedFileAppender.log", Level.Info, ExpectRolls: true) },
        ["before.log4net"] = new[] { new Promise("app.log", Level.Info) },
        ["after.log4net"] = new[] { new Promise("app.log", Level.Info) },
    };

    public static IEnumerable<TestCaseData> Configs() =>
        Directory.EnumerateFiles(ConfigsFolder, "*.config")
            .Concat(Directory.EnumerateFiles(MigrationFolder, "*.config"))
            .OrderBy(p => p, StringComparer.Ordinal)
            .Select(p => new TestCaseData(p).SetName("Sample " + Path.GetFileName(p)));

    [Test]
    public void EverySampleIsCopiedToTheTests()
    {
        // A broken glob in the test project would otherwise leave nothing to test.
        string[] names = Directory.EnumerateFiles(ConfigsFolder, "*.config").Select(Path.GetFileNameWithoutExtension).ToArray()!;
        Assert.That(names, Is.SupersetOf(new[]
        {
            "BoundedQueueAsyncAppender", "HotSwapAsyncAppender", "DisruptorAsyncAppender", "BufferedFileAppender",
            "RollingBufferedFileAppender", "AsyncToSeveralChildren", "DiscardWithThreshold",
        }));
        Assert.That(Directory.EnumerateFiles(MigrationFolder, "*.config").Select(Path.GetFileName),
            Is.EquivalentTo(new[] { "before.log4net.config", "after.log4net.config" }));
    }

    [TestCaseSource(nameof(Configs))]
    public void Sample_WritesTheFilesItPromises(string configPath)
    {
        string name = Path.GetFileNameWithoutExtension(configPath);
        bool discards = name == "DiscardWithThreshold";
        string dir = Path.Combine(Path.GetTempPath(), "lll-sample-" + Guid.NewGuid().ToString("N"));
        string? previous = Environment.GetEnvironmentVariable(DirVariable);
        Environment.SetEnvironmentVariable(DirVariable, dir);
        try
        {
            using var harness = new Log4netHarness(File.ReadAllText(configPath), dir);
            AsyncForwardingAppender? async = harness.Hierarchy.GetAppenders().OfType<AsyncForwardingAppender>().SingleOrDefault();
            List<(Level Level, string Message)>[] sent = LogFromThreads(harness);
            harness.Shutdown();

            Assert.That(harness.InternalErrors, Is.Empty, "log4net internal errors");
            if (discards)
            {
                CheckDiscardSample(harness, async!, sent);
                return;
            }

            Promise[] promises = Promises.TryGetValue(name, out Promise[]? listed)
                ? listed
                : new[] { new Promise(name + ".log", Level.Info) };
            foreach (Promise promise in promises)
            {
                string[] files = FilesOf(dir, promise.File);
                if (promise.ExpectRolls)
                {
                    Assert.That(files.Length, Is.GreaterThan(1), $"{promise.File} should have rolled");
                }

                string[] messages = ReadEventMessages(files);
                string[] expected = sent.SelectMany(s => s).Where(e => e.Level >= promise.MinLevel).Select(e => e.Message).ToArray();
                Assert.That(messages, Is.EquivalentTo(expected), $"{promise.File}: the events at {promise.MinLevel} or above");
                AssertInOrderPerProducer(messages, promise.File);
            }
        }
        finally
        {
            Environment.SetEnvironmentVariable(DirVariable, previous);
        }
    }

    private static void CheckDiscardSample(Log4netHarness harness, AsyncForwardingAppender async, List<(Level Level, string Message)>[] sent)
    {
        string[] messages = ReadEventMessages(FilesOf(harness.Directory, "DiscardWithThreshold.log"));
        var written = new HashSet<string>(messages);
        var admitted = sent.SelectMany(s => s).Where(e => e.Level >= Level.Info).ToArray();
        string[] severe = admitted.Where(e => e.Level >= Level.Warn).Select(e => e.Message).ToArray();

        Assert.That(severe.Where(m => !written.Contains(m)), Is.Empty, "WARN and ERROR are never discarded");
        Assert.That(messages.Length, Is.EqualTo(written.Count), "no event written twice");
        Assert.That(written.IsSubsetOf(admitted.Select(e => e.Message)), Is.True, "only admitted events are written (no DEBUG)");
        Assert.That(messages.Length + async.DiscardedCount, Is.EqualTo(admitted.Length), "sent = lines + DiscardedCount");
        AssertInOrderPerProducer(messages, "DiscardWithThreshold.log");
        TestContext.Out.WriteLine($"{admitted.Length} sent, {messages.Length} written, {async.DiscardedCount} discarded");
    }

    // Logs a mix of levels, so thresholds and discardThreshold have something to separate: mostly INFO, every 7th
    // DEBUG (below every sample's threshold), every 250th WARN, every 1000th ERROR (few, since the
    // samples with a console print them).
    private static List<(Level Level, string Message)>[] LogFromThreads(Log4netHarness harness)
    {
        var sent = Enumerable.Range(0, Producers).Select(_ => new List<(Level, string)>()).ToArray();
        var failures = new Exception?[Producers];
        Thread[] threads = Enumerable.Range(0, Producers).Select(p => new Thread(() =>
        {
            try
            {
                var log = harness.Logger("Sample.Producer" + p);
                for (int i = 0; i < PerProducer; i++)
                {
                    string message = $"p{p} e{i}";
                    Level level = i % 1000 == 0 ? Level.Error : i % 250 == 0 ? Level.Warn : i % 7 == 0 ? Level.Debug : Level.Info;
                    if (level == Level.Error) log.Error(message);
                    else if (level == Level.Warn) log.Warn(message);
                    else if (level == Level.Debug) log.Debug(message);
                    else log.Info(message);
                    sent[p].Add((level, message));
                }
            }
            catch (Exception e)
            {
                failures[p] = e;
            }
        })).ToArray();
        foreach (Thread thread in threads) thread.Start();
        foreach (Thread thread in threads) Assert.That(thread.Join(TimeSpan.FromMinutes(1)), Is.True, "producer finished");
        Assert.That(failures, Has.All.Null);
        return sent;
    }

    // The file and its size-roll backups, oldest first (countDirection -1: .1 is the newest backup).
    private static string[] FilesOf(string dir, string fileName)
    {
        string basePath = Path.Combine(dir, fileName);
        Assert.That(File.Exists(basePath), Is.True, fileName + " exists");
        var backups = Directory.EnumerateFiles(dir, fileName + ".*")
            .Where(p => p.Length > basePath.Length + 1) // "app.log.*" also matches app.log itself
            .Select(p => (Path: p, Index: int.TryParse(p.Substring(basePath.Length + 1), out int n) ? n : -1))
            .Where(b => b.Index > 0)
            .OrderByDescending(b => b.Index)
            .Select(b => b.Path);
        return backups.Append(basePath).ToArray();
    }

    private static readonly Regex EventLine = new Regex(@" - (p\d+ e\d+)$", RegexOptions.Compiled);

    // The test's events in file order; the async appenders' discard reports are left out.
    private static string[] ReadEventMessages(string[] files)
    {
        var messages = new List<string>();
        foreach (string line in files.SelectMany(File.ReadAllLines))
        {
            if (line.Contains(DiscardReport))
            {
                continue;
            }

            Match match = EventLine.Match(line);
            Assert.That(match.Success, Is.True, "unexpected line: " + line);
            messages.Add(match.Groups[1].Value);
        }

        return messages.ToArray();
    }

    private static void AssertInOrderPerProducer(string[] messages, string file)
    {
        var last = new Dictionary<string, int>();
        foreach (string message in messages)
        {
            string[] parts = message.Split(' ');
            int index = int.Parse(parts[1].Substring(1));
            Assert.That(index, Is.GreaterThan(last.TryGetValue(parts[0], out int previous) ? previous : -1), $"{file}: {parts[0]} in order");
            last[parts[0]] = index;
        }
    }

    private sealed record Promise(string File, Level MinLevel, bool ExpectRolls = false);
}
