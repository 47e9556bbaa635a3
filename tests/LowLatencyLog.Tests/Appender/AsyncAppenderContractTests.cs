using System;
using System.Diagnostics;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using log4net;
using log4net.Core;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Appender;

/// <summary>
/// Async 1–6 and 10 (docs/behaviours.md), for every async appender, configured from XML through log4net.
/// Tests wait on signals with bounded timeouts; timings only bound how long something may take.
/// </summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class AsyncAppenderContractTests : AsyncAppenderFixture
{
    public AsyncAppenderContractTests(AsyncAppenderKind kind)
        : base(kind)
    {
    }

    // Async 1.
    [Test]
    public void Block_EightProducers_EveryEventReachesEveryChildOnceInProducerOrder()
    {
        const int producers = 8, perProducer = 100_000;
        var harness = Configure(
            @"<bufferSize value=""1024"" />",
            $@"<appender name=""bulk"" type=""LowLatencyLog.Tests.Support.SequenceCheckingAppender, {TestAssembly}"" />
              <appender name=""plain"" type=""LowLatencyLog.Tests.Support.PlainSequenceCheckingAppender, {TestAssembly}"" />",
            @"<appender-ref ref=""bulk"" /><appender-ref ref=""plain"" />");
        ILog log = harness.Logger();
        AsyncForwardingAppender async = Async(harness);
        var bulk = harness.Appender<SequenceCheckingAppender>("bulk").Checker;
        var plain = harness.Appender<PlainSequenceCheckingAppender>("plain").Checker;

        RunProducers(producers, p => LogNumbered(log, p, perProducer, () => false));
        harness.Shutdown();

        foreach (SequenceChecker checker in new[] { bulk, plain })
        {
            Assert.That(checker.Problems, Is.Empty);
            Assert.That(checker.Count, Is.EqualTo(producers * perProducer));
            Assert.That(Enumerable.Range(0, producers).Select(checker.NextOf), Is.All.EqualTo(perProducer));
        }

        Assert.That(async.DiscardedCount, Is.Zero);
        Assert.That(async.DeliveredCount, Is.EqualTo(producers * perProducer));
        Assert.That(harness.InternalErrors, Is.Empty);
    }

    // Async 2.
    [Test]
    public void Batches_ChildrenGetNonEmptyArraysAndAreFlushedWhenTheQueueRunsEmpty()
    {
        var harness = Configure();
        RecordingAppender child = Child(harness);
        for (int i = 0; i < 100; i++)
        {
            harness.Logger().Info("e" + i);
        }

        Assert.That(child.WaitForCount(100), Is.True);
        Assert.That(Eventually(() => child.Flushes > 0), Is.True, "end-of-batch flush");
        Assert.That(child.BulkCalls, Is.GreaterThan(0));
        Assert.That(child.BulkCalls, Is.LessThanOrEqualTo(100));
        Assert.That(child.EmptyBulkCalls, Is.Zero);
        Assert.That(child.Lines, Is.EqualTo(Enumerable.Range(0, 100).Select(i => "e" + i)));
    }

    // Async 2, with log4net's own file appenders, whose Flush(int) fails with immediateFlush=false.
    [TestCase("log4net.Appender.FileAppender")]
    [TestCase("log4net.Appender.RollingFileAppender")]
    public void Batches_FileAppenderChildWithImmediateFlushOff_FileIsCompleteWhenQueueRunsEmpty(string fileAppenderType)
    {
        var harness = Configure(appenders: $@"
            <appender name=""child"" type=""{fileAppenderType}"">
              <file value=""{{dir}}app.log"" />
              <immediateFlush value=""false"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>");
        string path = harness.PathOf("app.log");
        ILog log = harness.Logger();

        for (int i = 0; i < 5000; i++)
        {
            log.Info("line " + i);
        }

        Assert.That(Async(harness).Flush(10_000), Is.True);
        Assert.That(ReadShared(path), Has.Length.EqualTo(5000));

        // No Flush call: the worker's end-of-batch flush alone gets a quiet application's events on disk.
        log.Info("quiet 1");
        log.Info("quiet 2");
        Assert.That(Eventually(() => ReadShared(path).Length == 5002), Is.True, "the last events reached the file without a Flush call");
        Assert.That(ReadShared(path).Last(), Is.EqualTo("quiet 2"));

        harness.Shutdown();
        Assert.That(ReadShared(path), Is.EqualTo(Enumerable.Range(0, 5000).Select(i => "line " + i).Concat(new[] { "quiet 1", "quiet 2" })));
        Assert.That(harness.InternalErrors, Is.Empty, "no FlushFailure from the child");
    }

    // Async 2 with this library's file appenders, which take captured batches and leave the write to the worker's
    // flush when the queue runs empty (or to a full buffer): with flushInterval=0 no timer can be what writes.
    [TestCase("LowLatencyLog.Appender.BufferedFileAppender")]
    [TestCase("LowLatencyLog.Appender.RollingBufferedFileAppender")]
    public void Batches_OurFileChild_FileIsCompleteWhenQueueRunsEmpty_WithoutFlushOrTimer(string fileAppenderType)
    {
        var harness = Configure(appenders: $@"
            <appender name=""child"" type=""{fileAppenderType}, LowLatencyLog"">
              <file value=""{{dir}}app.log"" />
              <flushInterval value=""0"" />
              <bufferSize value=""1048576"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>");
        string path = harness.PathOf("app.log");
        ILog log = harness.Logger();

        for (int round = 0; round < 3; round++)
        {
            int before = ReadShared(path).Length;
            int events = round == 0 ? 20_000 : 1 + round;
            for (int i = 0; i < events; i++)
            {
                log.Info($"r{round} {i}");
            }

            Assert.That(Eventually(() => ReadShared(path).Length == before + events), Is.True, $"round {round}: every event in the file without a Flush call");
            Assert.That(ReadShared(path).Last(), Is.EqualTo($"r{round} {events - 1}"));
        }

        Assert.That(((LowLatencyLog.Forwarding.ICapturedEventAppender)harness.Appender<BufferedFileAppender>("child")).MayReadEventObjects, Is.False, "the child takes captured events");
        harness.Shutdown();
        Assert.That(ReadShared(path), Has.Length.EqualTo(20_000 + 2 + 3));
        Assert.That(harness.InternalErrors, Is.Empty);
    }

    // Async 1 and IAppenderAttachable: RemoveAllAppenders closes the children (as log4net's forwarding appender
    // does) while producers log. A batch in flight and the file child's event held for the end-of-batch flush must
    // reach the children before they are closed, never after.
    [Test]
    public void RemoveAllAppendersWhileLogging_ChildrenGetEveryBatchBeforeTheyAreClosed()
    {
        var harness = Configure(
            appenders: RecordingChild() + @"
            <appender name=""file"" type=""log4net.Appender.FileAppender"">
              <file value=""{dir}app.log"" />
              <immediateFlush value=""false"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>",
            refs: @"<appender-ref ref=""file"" /><appender-ref ref=""child"" />");
        RecordingAppender child = Child(harness);
        AsyncForwardingAppender async = Async(harness);
        ILog log = harness.Logger();
        bool stop = false;
        Thread[] producers = Enumerable.Range(0, 4).Select(p => new Thread(() =>
            LogNumbered(log, p, int.MaxValue, () => Volatile.Read(ref stop))) { IsBackground = true }).ToArray();
        foreach (Thread producer in producers)
        {
            producer.Start();
        }

        Assert.That(child.WaitForCount(20_000), Is.True);
        async.RemoveAllAppenders();
        Volatile.Write(ref stop, true);
        foreach (Thread producer in producers)
        {
            producer.Join(TimeSpan.FromSeconds(30));
        }

        Assert.That(harness.InternalErrors, Is.Empty, "nothing was appended to a closed child");
        Assert.That(ReadShared(harness.PathOf("app.log")), Is.EqualTo(child.Lines), "both children got the same events, all of them written");
    }

    // Async 3.
    [Test]
    public void Shutdown_FullQueueAndSlowChild_EverythingIsDelivered()
    {
        var harness = Configure(@"<bufferSize value=""16"" />");
        RecordingAppender child = Child(harness);
        AsyncForwardingAppender async = Async(harness);
        child.OnEvent = _ => Thread.Sleep(1); // models a slow disk, not synchronization
        for (int i = 0; i < 200; i++)
        {
            harness.Logger().Info("e" + i); // blocks while the 16 slots are full
        }

        harness.Shutdown();

        Assert.That(child.Lines, Is.EqualTo(Enumerable.Range(0, 200).Select(i => "e" + i)));
        Assert.That(async.UndeliveredCount, Is.Zero);
        Assert.That(async.DeliveredCount, Is.EqualTo(200));
        Assert.That(harness.InternalErrors, Is.Empty);
    }

    // Async 3.
    [Test]
    public void Close_HangingChild_ReturnsWithinShutdownTimeoutAndReportsTheLeftover()
    {
        var harness = Configure(@"<shutdownTimeout value=""300"" />");
        RecordingAppender child = Child(harness);
        AsyncForwardingAppender async = Async(harness);
        child.Hold();
        harness.Logger().Info("held");
        Assert.That(child.Entered.Wait(Wait), Is.True);
        for (int i = 0; i < 4; i++)
        {
            harness.Logger().Info("e" + i); // queued behind the batch the child holds
        }

        var clock = Stopwatch.StartNew();
        // The child holds for good, so only the timeout ends the drain: a Close that ignored it would never return.
        Assert.That(Task.Run(harness.Shutdown).Wait(TimeSpan.FromSeconds(120)), Is.True, "Close gave up after shutdownTimeout");
        clock.Stop();
        async.Close(); // idempotent

        Assert.That(clock.Elapsed, Is.GreaterThanOrEqualTo(TimeSpan.FromMilliseconds(250)), "Close waited for the drain first");
        Assert.That(harness.InternalErrors.Any(e => e.Contains("Close timed out") && e.Contains("[async]") && e.Contains("4 queued")), Is.True, string.Join("\n", harness.InternalErrors));

        child.Open();
        Assert.That(Eventually(() => async.UndeliveredCount == 4), Is.True, $"undelivered: {async.UndeliveredCount}");
    }

    // Async 4.
    [Test]
    public void Flush_ChildGated_FalseThenTrueOnceReleased()
    {
        var harness = Configure();
        RecordingAppender child = Child(harness);
        AsyncForwardingAppender async = Async(harness);
        child.Hold();
        for (int i = 0; i < 10; i++)
        {
            harness.Logger().Info("e" + i);
        }

        Assert.That(async.Flush(100), Is.False);
        child.Open();
        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(child.Count, Is.EqualTo(10));
        Assert.That(child.Flushes, Is.GreaterThan(0));
    }

    // Async 5.
    [Test]
    public void Discard_AccountingIsExact_SummaryWarnReachesChildren_WarningsAndErrorsAreNeverDropped()
    {
        const int total = 3000;
        var harness = Configure(@"<bufferSize value=""16"" /><overflow value=""Discard"" /><discardThreshold value=""INFO"" />");
        RecordingAppender child = Child(harness);
        AsyncForwardingAppender async = Async(harness);
        ILog log = harness.Logger();
        child.Hold();

        var producer = Task.Run(() => LogLevels(log, total));
        Assert.That(Eventually(() => async.DiscardedCount > 0), Is.True);
        child.Open();
        Assert.That(producer.Wait(Wait), Is.True);
        Assert.That(async.Flush(10_000), Is.True);

        string[] lines = child.Lines;
        string[] summaries = lines.Where(l => l.Contains("discarded")).ToArray();
        long delivered = lines.Length - summaries.Length;
        Assert.That(delivered + async.DiscardedCount, Is.EqualTo(total));
        Assert.That(lines.Count(l => l.StartsWith("warn ") || l.StartsWith("error ")), Is.EqualTo(total / 10));
        Assert.That(summaries, Is.Not.Empty);
        Assert.That(child.Events.Where(e => e.RenderedMessage!.Contains("discarded")).Select(e => e.Level), Is.All.EqualTo(Level.Warn));
        Assert.That(summaries.Sum(s => long.Parse(s.Split(' ')[0])), Is.EqualTo(async.DiscardedCount));
        Assert.That(harness.InternalWarnings.Any(w => w.Contains("discarded") && w.Contains("[async]")), Is.True);
    }

    // Async 6.
    [Test]
    public void ThrowingChild_OtherChildrenGetEverything_LaterEventsFlow_ErrorHandlerSawIt()
    {
        var harness = Configure(
            appenders: $@"<appender name=""bad"" type=""LowLatencyLog.Tests.Support.PlainAppender, {TestAssembly}"" />" + RecordingChild("good"),
            refs: @"<appender-ref ref=""bad"" /><appender-ref ref=""good"" />");
        var bad = harness.Appender<PlainAppender>("bad");
        RecordingAppender good = Child(harness, "good");
        AsyncForwardingAppender async = Async(harness);
        var errors = new RecordingErrorHandler();
        async.ErrorHandler = errors;
        bad.ThrowWhen = e => e.RenderedMessage!.EndsWith("3");

        for (int i = 0; i < 40; i++)
        {
            harness.Logger().Info("e" + i);
        }

        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(good.Lines, Is.EqualTo(Enumerable.Range(0, 40).Select(i => "e" + i)));
        Assert.That(bad.Messages, Is.EqualTo(Enumerable.Range(0, 40).Where(i => i % 10 != 3).Select(i => "e" + i)));
        Assert.That(errors.Errors, Has.Length.EqualTo(4));
        Assert.That(errors.Errors, Is.All.Contains("[bad]").And.Contains("plain child failure"));

        harness.Logger().Info("later");
        Assert.That(good.WaitForCount(41), Is.True);
    }

    // Async 10.
    [Test]
    public void Worker_IsOneBackgroundThreadNamedAfterTheAppender_WithoutTheCallersExecutionContext()
    {
        LogicalThreadContext.Properties["leak"] = "from the configuring thread";
        try
        {
            var harness = Configure();
            RecordingAppender child = Child(harness);
            object? seenOnWorker = "not run";
            child.OnEvent = _ => seenOnWorker = LogicalThreadContext.Properties["leak"];
            harness.Logger().Info("one");
            Assert.That(Async(harness).Flush(10_000), Is.True);

            Assert.That(child.Threads, Is.EqualTo(new[] { "async" }));
            Assert.That(child.IsWorkerBackground, Is.True);
            Assert.That(seenOnWorker, Is.Null);
        }
        finally
        {
            LogicalThreadContext.Properties.Remove("leak");
        }
    }

    // Async 10: a child that logs back into log4net from the worker while LogManager.Shutdown holds the root
    // logger's lock. The worker blocks in log4net, so Close gives up after shutdownTimeout instead of hanging.
    [Test]
    public void ChildLoggingBackFromTheWorkerDuringShutdown_ShutdownCompletesWithinBoundedTime()
    {
        // The signal appender is attached to the root before the async one, so log4net closes it first.
        var harness = Track(new Log4netHarness(Xml(
            @"<shutdownTimeout value=""500"" />",
            RecordingChild() + $@"<appender name=""signal"" type=""LowLatencyLog.Tests.Support.SignalOnCloseAppender, {TestAssembly}"" />")
            .Replace(@"<appender-ref ref=""async"" />", @"<appender-ref ref=""signal"" /><appender-ref ref=""async"" />")));
        RecordingAppender child = Child(harness);
        ILog echo = harness.Logger("echo");
        child.OnEvent = e => Echo(echo, e);
        harness.Logger().Info("e0");
        Assert.That(Async(harness).Flush(10_000), Is.True);
        // SPEC 18: a call a child makes into this same appender while the worker delivers to it is dropped and
        // counted, as log4net's forwarding appender drops it on the thread that delivers.
        Assert.That(child.Count, Is.EqualTo(1), "the echo is not taken");
        Assert.That(Async(harness).ReentrantCount, Is.EqualTo(1), "the echo is counted");

        child.Hold();
        harness.Logger().Info("during shutdown");
        Assert.That(child.Entered.Wait(Wait), Is.True);
        // Shutdown closes the signal appender first (under the root's write lock), which releases the child; the
        // child's echo then waits for that lock while Close waits for the worker.
        harness.Appender<SignalOnCloseAppender>("signal").OnClosing = child.Open;
        var shutdown = Task.Run(harness.Shutdown);

        // A deadlock never ends; the bound is only how long the test waits to say so.
        Assert.That(shutdown.Wait(TimeSpan.FromSeconds(120)), Is.True, "LogManager.Shutdown did not deadlock");
    }

    // Async 3 and 10: producers wait for room in a full buffer when LogManager.Shutdown starts, and the child logs back
    // into log4net from the worker. On log4net's path the producers hold the root logger's read lock, the shutdown waits
    // for its write lock, and the echo waits behind the shutdown: nothing moves until the producers stop waiting, and
    // their events are counted. On the fast path they hold no lock of log4net's and nothing stalls.
    [Test]
    public void ProducersBlockedOnAFullBufferWhileAChildLogsBackDuringShutdown_ShutdownCompletesAndAccountsForTheirEvents()
    {
        var harness = Track(new Log4netHarness(Xml(@"<bufferSize value=""16"" /><shutdownTimeout value=""1000"" />", RecordingChild())));
        RecordingAppender child = Child(harness);
        AsyncForwardingAppender async = Async(harness);
        var errors = new RecordingErrorHandler();
        async.ErrorHandler = errors;
        ILog echo = harness.Logger("echo");
        child.OnEvent = e =>
        {
            Thread.Sleep(1);
            Echo(echo, e);
        };
        bool stop = false;
        Thread[] producers = Enumerable.Range(0, 4).Select(p => new Thread(() =>
            LogUntil(harness.Logger(), "p" + p, () => Volatile.Read(ref stop))) { IsBackground = true }).ToArray();
        foreach (Thread producer in producers)
        {
            producer.Start();
        }

        Assert.That(child.WaitForCount(100), Is.True, "the buffer fills and the producers wait for room");
        var shutdown = Task.Run(harness.Shutdown);
        bool finished = shutdown.Wait(TimeSpan.FromSeconds(60));
        Volatile.Write(ref stop, true);
        foreach (Thread producer in producers)
        {
            producer.Join(TimeSpan.FromSeconds(30));
        }

        Assert.That(finished, Is.True, "LogManager.Shutdown did not deadlock");
        if (FastPath.TakenByTheseTests)
        {
            // On the fast path (SPEC 22) the producers hold no lock of log4net's, so the shutdown does not wait for
            // them: it closes the appender, and what they log after that is refused and reported.
            Assert.That(errors.Errors.Any(e => e.Contains("after the appender was closed")), Is.True, string.Join("\n", errors.Errors));
            Assert.That(errors.Errors.Any(e => e.Contains("has delivered nothing")), Is.False, "the worker never stalled");
            Assert.That(async.DiscardedCount, Is.Zero);
            Assert.That(async.DeliveredCount, Is.EqualTo(child.Count));
            Assert.That(async.ReentrantCount, Is.EqualTo(child.Count), "each echo from the worker is refused and counted (SPEC 18)");
        }
        else
        {
            Assert.That(async.DiscardedCount, Is.GreaterThan(0), "the producers stopped waiting; their events were counted");
            Assert.That(errors.Errors.Any(e => e.Contains("has delivered nothing")), Is.True, string.Join("\n", errors.Errors));
        }
    }

    // Async 3: DoAppend never throws into the application, also after Close.
    [Test]
    public void AfterClose_LoggingNeitherThrowsNorDelivers()
    {
        var harness = Configure();
        RecordingAppender child = Child(harness);
        AsyncForwardingAppender async = Async(harness);
        async.Close();
        int before = child.Count;

        Assert.DoesNotThrow(() => async.DoAppend(new LoggingEvent(GetType(), harness.Repository, "x", Level.Info, "after", null)));
        Assert.DoesNotThrow(() => async.DoAppend(new[] { new LoggingEvent(GetType(), harness.Repository, "x", Level.Info, "after", null) }));
        Assert.That(async.Flush(100), Is.True, "nothing accepted is left to deliver");
        Assert.That(child.Count, Is.EqualTo(before));
    }

    // The calls the tests make from other threads, in ordinary methods: a build with the call-site generator intercepts
    // them there (not in a lambda), so LowLatencyLog.Tests.Intercepted runs this suite on the fast path.
    private static void LogNumbered(ILog log, int producer, int count, Func<bool> stop)
    {
        for (int i = 0; i < count && !stop(); i++)
        {
            log.Info(producer + ":" + i);
        }
    }

    private static void LogLevels(ILog log, int total)
    {
        for (int i = 0; i < total; i++)
        {
            if (i % 50 == 0)
            {
                log.Error("error " + i);
            }
            else if (i % 10 == 0)
            {
                log.Warn("warn " + i); // waits for room instead of being dropped
            }
            else
            {
                log.Info("info " + i);
            }
        }
    }

    private static void LogUntil(ILog log, string message, Func<bool> stop)
    {
        while (!stop())
        {
            log.Info(message);
        }
    }

    private static void Echo(ILog echo, LoggingEvent e)
    {
        if (!e.RenderedMessage!.StartsWith("echo"))
        {
            echo.Info("echo " + e.RenderedMessage);
        }
    }
}
