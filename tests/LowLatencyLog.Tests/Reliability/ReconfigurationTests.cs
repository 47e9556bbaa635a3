using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Reliability;

/// <summary>
/// log4net reconfigured while threads log (<c>XmlConfigurator.Configure</c> again, or <c>ResetConfiguration</c> then
/// <c>Configure</c>): nothing throws, nothing hangs, and every event a chain accepted reaches that chain's file, once.
/// </summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class ReconfigurationTests
{
    private const int Producers = 4;
    private const int Generations = 6;
    private readonly AsyncAppenderKind _kind;

    public ReconfigurationTests(AsyncAppenderKind kind) => _kind = kind;

    [Test]
    public void Configure_AgainWhileProducersLog_EveryEventReachesAFileExactlyOnce()
    {
        using var harness = new Log4netHarness(Config(0));

        // log4net replaces the root's appenders and closes the old ones.
        int[] sent = LogWhileReconfiguring(harness, generation => harness.Configure(Config(generation)));

        Assert.That(ReadEveryGeneration(harness), Is.EqualTo(sent.Sum()), "every event logged reached a file");
        Assert.That(harness.InternalErrors, Is.Empty);
    }

    [Test]
    public void ResetConfiguration_ThenConfigureWhileProducersLog_NothingThrowsOrHangsAndNothingIsWrittenTwice()
    {
        using var harness = new Log4netHarness(Config(0));

        // ResetConfiguration closes the chain; until the next Configure log4net has no appender.
        int[] sent = LogWhileReconfiguring(harness, generation =>
        {
            harness.Repository.ResetConfiguration();
            harness.Configure(Config(generation));
        });

        // Events logged while no appender was configured never reached ours; everything ours accepted is in a file once.
        Assert.That(ReadEveryGeneration(harness), Is.GreaterThan(0).And.LessThanOrEqualTo(sent.Sum()));

        // A thread that read the old appender list just before the reset may still call the closed appender: refused,
        // and said so; nothing else goes wrong.
        Assert.That(harness.InternalErrors.Where(e => !e.Contains("after the appender was closed")), Is.Empty);
    }

    /// <summary>
    /// Producers log continuously while <paramref name="reconfigure"/> runs for each later generation; then they stop,
    /// the repository shuts down, and no log call may have thrown or hung.
    /// </summary>
    /// <returns>How many events each producer logged.</returns>
    private int[] LogWhileReconfiguring(Log4netHarness harness, Action<int> reconfigure)
    {
        var sent = new int[Producers];
        var errors = new List<Exception>();
        using var stop = new ManualResetEventSlim();
        Thread[] producers = StartProducers(harness, sent, errors, stop);

        for (int generation = 1; generation < Generations; generation++)
        {
            WaitForProgress(sent, 2_000);
            reconfigure(generation);
        }

        WaitForProgress(sent, 2_000);
        stop.Set();
        foreach (Thread producer in producers)
        {
            Assert.That(producer.Join(TimeSpan.FromSeconds(60)), Is.True, "no producer hangs");
        }

        harness.Shutdown();
        Assert.That(errors, Is.Empty, "no log call threw");
        return sent;
    }

    /// <summary>Checks that every generation's file holds each producer's events in order and no event appears twice
    /// across the files.</summary>
    /// <returns>How many events the files hold.</returns>
    private static int ReadEveryGeneration(Log4netHarness harness)
    {
        var seen = new HashSet<(int, int)>();
        for (int generation = 0; generation < Generations; generation++)
        {
            string path = harness.PathOf($"gen{generation}.log");
            Assert.That(File.Exists(path), Is.True, $"generation {generation} wrote its file");
            var last = new int[Producers];
            Array.Fill(last, -1);
            foreach (string line in File.ReadLines(path))
            {
                string[] parts = line.Split(' ');
                int producer = int.Parse(parts[0]), sequence = int.Parse(parts[1]);
                Assert.That(sequence, Is.GreaterThan(last[producer]), $"gen{generation}: producer {producer} in order");
                last[producer] = sequence;
                Assert.That(seen.Add((producer, sequence)), Is.True, $"event {producer}/{sequence} written once");
            }
        }

        return seen.Count;
    }

    private Thread[] StartProducers(Log4netHarness harness, int[] sent, List<Exception> errors, ManualResetEventSlim stop)
    {
        var log = harness.Logger("reconfigured");
        Thread[] threads = Enumerable.Range(0, Producers).Select(p => new Thread(() =>
        {
            try
            {
                for (int i = 0; !stop.IsSet; i++)
                {
                    log.Info($"{p} {i}");
                    Volatile.Write(ref sent[p], i + 1);
                }
            }
            catch (Exception e)
            {
                lock (errors)
                {
                    errors.Add(e);
                }
            }
        }) { IsBackground = true }).ToArray();
        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        return threads;
    }

    /// <summary>Waits (bounded) until the producers have logged <paramref name="events"/> more events in all.</summary>
    private static void WaitForProgress(int[] sent, int events)
    {
        long target = sent.Sum() + events;
        Assert.That(SpinWait.SpinUntil(() => sent.Sum() >= target, TimeSpan.FromSeconds(60)), Is.True, "producers make progress");
    }

    private string Config(int generation) => $@"<log4net>
          <appender name=""async"" type=""{_kind.TypeAttribute}"">
            <bufferSize value=""1024"" />
            <appender-ref ref=""file"" />
          </appender>
          <appender name=""file"" type=""log4net.Appender.FileAppender"">
            <file value=""{{dir}}gen{generation}.log"" />
            <immediateFlush value=""false"" />
            <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
          </appender>
          <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
        </log4net>";
}
