using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// Async 14: under sustained overload (the buffer full, <c>overflow=Block</c>) with a new message string per call,
/// the buffer does not age the heap: the slots hold copies of the text in their own long-lived storage, never the
/// callers' young objects, so nothing the application allocates survives a collection because it waits in the buffer.
/// </summary>
/// <remarks>
/// Measured as what each collection promoted (the runtime's GC events), not as how many collections ran: the count
/// depends on the machine's load and the GC's budgets, the promoted bytes on what the buffer references. A buffer that
/// held each event's string would promote the strings waiting in it at every young collection (0.4-2 MB per collection
/// here); copies in the slots' own storage promote what the worker and the two producers have in hand, as without it.
/// </remarks>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class PromotionTests
{
    private const int Events = 1_000_000;
    // The largest buffer whose slots get their text storage when the queue is created (ItemCopy.PrepareLimit): a larger
    // one creates it on each slot's first use, once, which a test cannot tell from aging (the hot swap's last slots are
    // first reached whenever a burst first fills a buffer that far).
    private const int BufferSize = 65_536;
    private const string Pattern = "%date [%thread] %-5level %logger - %message%newline";
    private readonly AsyncAppenderKind _kind;

    public PromotionTests(AsyncAppenderKind kind) => _kind = kind;

    [Test]
    public void AFullBufferOfPerCallStrings_PromotesNoMoreThanTheSynchronousAppender()
    {
        using var promotions = new GcPromotions();
        long syncPromoted = PromotedPerCollection(promotions, "sync", SynchronousConfig(), null, out _);
        long asyncPromoted = PromotedPerCollection(promotions, _kind.ToString(), AsyncConfig(), "async", out int asyncCollections);

        Assert.That(asyncCollections, Is.GreaterThan(0), "the producers' strings made the young generation collect");
        // Slots that held the callers' strings (~100 B each) promoted 0.4-2 MB per collection here (the buffer is not
        // always full when one runs); copies promote what the synchronous appender does, about 2 KB. The margin is
        // a thousand such strings.
        const long margin = 1_000 * 100L;
        Assert.That(asyncPromoted, Is.LessThan(syncPromoted + margin),
            "a young collection promotes about what it promotes without the buffer, never the buffer's worth of strings");
    }

    /// <summary>
    /// Logs <see cref="Events"/> strings after a warm-up and returns the largest number of bytes one collection
    /// promoted out of the young generations (gen 0 into gen 1, and gen 1 into gen 2) during the run.
    /// </summary>
    private static long PromotedPerCollection(GcPromotions promotions, string label, string config, string? asyncName, out int collections)
    {
        using var harness = new Log4netHarness(config);
        ILog log = harness.Logger("orders");
        var async = asyncName == null ? null : harness.Appender<AsyncForwardingAppender>(asyncName);

        // Warm-up: JIT, and the slots' text storage settled in the old generation.
        Produce(log, 1_600_000);
        Assert.That(async?.Flush(60_000) ?? true, Is.True);
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();

        long discardedBefore = async?.DiscardedCount ?? 0;
        long before = GC.CollectionCount(0);
        Produce(log, Events);
        Assert.That(async?.Flush(60_000) ?? true, Is.True);
        long after = GC.CollectionCount(0);
        Assert.That(async?.DiscardedCount ?? 0, Is.EqualTo(discardedBefore), "Block: nothing dropped");

        IReadOnlyList<GcPromotions.Collection> run = promotions.Between(before, after, TimeSpan.FromSeconds(10));
        collections = run.Count;
        long largest = run.Count == 0 ? 0 : run.Max(c => Math.Max(c.PromotedFromGen0, c.PromotedFromGen1));
        TestContext.Out.WriteLine($"{label}: {after - before} collections, {run.Count} reported; largest promotion {largest:N0} B; "
            + $"gen1 {run.Count(c => c.Generation == 1)}, gen2 {run.Count(c => c.Generation == 2)}");
        foreach (GcPromotions.Collection c in run.OrderByDescending(c => Math.Max(c.PromotedFromGen0, c.PromotedFromGen1)).Take(3))
        {
            TestContext.Out.WriteLine("  " + c);
        }

        return largest;
    }

    private string AsyncConfig() => $@"<log4net>
        <appender name=""async"" type=""{_kind.TypeAttribute}"">
          <bufferSize value=""{BufferSize}"" />
          <appender-ref ref=""file"" />
        </appender>
        {FileAppender}
        <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
      </log4net>";

    private static string SynchronousConfig() => $@"<log4net>
        {FileAppender}
        <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
      </log4net>";

    private const string FileAppender = @"<appender name=""file"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
          <file value=""{dir}app.log"" />
          <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""" + Pattern + @""" /></layout>
        </appender>";

    private static void Produce(ILog log, int events)
    {
        // Two producers, faster together than the worker that renders and writes: the buffer stays full.
        var threads = new Thread[2];
        for (int t = 0; t < threads.Length; t++)
        {
            int offset = t;
            threads[t] = new Thread(() =>
            {
                for (int i = offset; i < events; i += 2)
                {
                    log.Info("Order " + i + " filled for account " + (i % 977) + " at " + (i * 0.25m));
                }
            }) { IsBackground = true, Name = "producer-" + t };
            threads[t].Start();
        }

        foreach (Thread thread in threads)
        {
            Assert.That(thread.Join(TimeSpan.FromMinutes(2)), Is.True);
        }
    }
}
