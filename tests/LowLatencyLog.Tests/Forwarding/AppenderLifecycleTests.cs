using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using log4net.Appender;
using log4net.Core;
using log4net.Util;
using LowLatencyLog.Capture;
using LowLatencyLog.Engine;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Forwarding;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Forwarding;

/// <summary>The async appender's lifecycle on its own: activation (once, again, after close), the events taken
/// before it, a worker that cannot start or metrics that cannot register, and a close that runs out of time.</summary>
public sealed class AppenderLifecycleTests
{
    private static readonly TimeSpan Bound = TimeSpan.FromSeconds(10);

    [Test]
    public void CloseBeforeActivation_CountsTheHeldEventsUndelivered_ClosesTheChildren_AndAnActivationAfterItStaysClosed()
    {
        var life = new Life();
        var child = new ClosingChild();
        life.Children.Add(child);
        life.Log("a");
        life.Log("b");

        life.Lifecycle.Close();
        Assert.That(life.Lifecycle.UndeliveredBeforeActivation, Is.EqualTo(2));
        Assert.That(child.Closes, Is.EqualTo(1));
        Assert.That(life.Lifecycle.Flush(0), Is.False, "events were left behind");

        life.Lifecycle.Activate();
        Assert.That(life.Creates, Is.EqualTo(0), "closed: no dispatcher is created");
        Assert.That(life.Lifecycle.Running, Is.Null);

        life.Lifecycle.Close();
        Assert.That(child.Closes, Is.EqualTo(1), "close is idempotent");
    }

    [Test]
    public void ActivatedTwice_CreatesOneDispatcher_AndTheSecondOnlyReactivates()
    {
        var life = new Life();
        RecordingAppender child = life.AddRecordingChild();

        life.Lifecycle.Activate();
        AsyncDispatcher<CapturedEvent>? first = life.Lifecycle.Running;
        life.Lifecycle.Activate();

        Assert.That(life.Creates, Is.EqualTo(1));
        Assert.That(life.Reactivations, Is.EqualTo(1));
        Assert.That(life.Lifecycle.Running, Is.SameAs(first).And.Not.Null);
        Assert.That(life.Published, Is.EqualTo(new[] { first }), "published once");
        Assert.That(life.Lifecycle.ShutdownTimeout, Is.EqualTo(life.Timeout), "the timeout the settings gave");

        life.Log("after");
        Assert.That(life.Lifecycle.Flush(10_000), Is.True);
        life.Lifecycle.Close();
        Assert.That(child.Lines, Is.EqualTo(new[] { "after" }));
    }

    [Test]
    public void EventsTakenBeforeActivation_AreHeld_ThenDeliveredFirstInOrder()
    {
        var life = new Life();
        RecordingAppender child = life.AddRecordingChild();
        life.Log("early 0");
        life.Log("early 1");
        Assert.That(life.Lifecycle.Running, Is.Null, "no dispatcher before activation");
        Assert.That(life.Lifecycle.Flush(0), Is.False, "held, not delivered");

        life.Lifecycle.Activate();
        life.Log("later");

        Assert.That(life.Lifecycle.Flush(10_000), Is.True);
        life.Lifecycle.Close();
        Assert.That(child.Lines, Is.EqualTo(new[] { "early 0", "early 1", "later" }));
        Assert.That(life.Lifecycle.Running!.DeliveredCount, Is.EqualTo(3));
    }

    /// <summary>More early events than the buffer takes, so activation is still moving them when another thread
    /// logs: that event waits and goes behind them, never ahead.</summary>
    [Test]
    public void AnEventLoggedWhileActivationMovesTheEarlyEvents_GoesBehindThem()
    {
        var life = new Life { Timeout = 10_000 };
        RecordingAppender child = life.AddRecordingChild();
        child.Hold(); // the worker takes one batch and waits in the child: the rest cannot all be moved yet
        for (int i = 0; i < 40; i++)
        {
            life.Log("early " + i);
        }

        Task activation = Task.Run(life.Lifecycle.Activate);
        Assert.That(SpinWait.SpinUntil(() => life.Lifecycle.Running != null, Bound), Is.True, "activation has started the worker");
        Assert.That(life.Published, Is.Empty, "not published while early events are left");
        Task during = Task.Run(() => life.Log("during"));
        Assert.That(child.Entered.Wait(Bound), Is.True);
        child.Open();

        Assert.That(Task.WaitAll(new[] { activation, during }, Bound), Is.True);
        Assert.That(life.Lifecycle.Flush(10_000), Is.True);
        life.Lifecycle.Close();
        Assert.That(child.Lines, Is.EqualTo(Enumerable.Range(0, 40).Select(i => "early " + i).Append("during")));
    }

    [Test]
    public void AWorkerThreadThatCannotStart_ChildrenGetEveryEventOnTheLoggingThreads_AndCloseClosesThem()
    {
        var messages = new ConcurrentQueue<string>();
        LogLog.LogReceived += Received;
        try
        {
            var life = new Life { FailStart = true };
            RecordingAppender child = life.AddRecordingChild();
            life.Log("early 0"); // before activation, as log4net 3.5 may append
            life.Log("early 1");

            life.Activate();
            Assert.That(messages, Has.Some.Contains("could not start its worker thread"));
            Assert.That(life.Lifecycle.Synchronous, Is.True);
            Assert.That(life.Lifecycle.Running, Is.Null);
            Assert.That(life.Published, Is.Empty);
            Assert.That(child.Lines, Is.EqualTo(new[] { "early 0", "early 1" }), "the early events, forwarded at activation");

            Task other = Task.Run(() => life.Log("from another thread"));
            Assert.That(other.Wait(Bound), Is.True, "a logging thread returns");
            life.Log("after");
            Assert.That(life.Lifecycle.Flush(1000), Is.True);

            Task closing = Task.Run(life.Lifecycle.Close);
            Assert.That(closing.Wait(Bound), Is.True, "Close completes");
            Assert.That(child.Lines, Is.EqualTo(new[] { "early 0", "early 1", "from another thread", "after" }));
        }
        finally
        {
            LogLog.LogReceived -= Received;
        }

        void Received(object? sender, LogReceivedEventArgs e) => messages.Enqueue(e.LogLog.Message);
    }

    [Test]
    public void AWorkerThreadThatCannotStart_AFlushLosesNoTextOfALog4netFileAppenderWithoutImmediateFlush()
    {
        string path = System.IO.Path.Combine(System.IO.Path.GetTempPath(), "lll-" + Guid.NewGuid().ToString("N") + ".log");
        try
        {
            var life = new Life { FailStart = true };
            var file = new log4net.Appender.FileAppender
            {
                Name = "file",
                File = path,
                ImmediateFlush = false,
                Layout = new log4net.Layout.PatternLayout("%message%newline"),
            };
            file.ActivateOptions();
            life.Children.Add(file);
            life.Activate();

            life.Log("one");
            life.Log("two");
            Assert.That(life.Lifecycle.Flush(1000), Is.False, "not flushed: the child cannot flush safely in that mode");
            life.Log("three");
            life.Lifecycle.Close();

            Assert.That(System.IO.File.ReadAllLines(path), Is.EqualTo(new[] { "one", "two", "three" }));
        }
        finally
        {
            System.IO.File.Delete(path);
        }
    }

    [Test]
    public void MetricsThatCannotRegister_TheLifecycleStillDelivers()
    {
        var life = new Life { FailMetrics = true };
        RecordingAppender child = life.AddRecordingChild();
        life.Log("early");
        life.Lifecycle.Activate();

        Task other = Task.Run(() => life.Log("later"));
        Assert.That(other.Wait(Bound), Is.True);
        Assert.That(life.Lifecycle.Flush(10_000), Is.True);
        life.Lifecycle.Close();
        Assert.That(child.Lines, Is.EqualTo(new[] { "early", "later" }));
    }

    [Test]
    public void RegisteredMetrics_AreDisposedAtClose_Once()
    {
        var life = new Life();
        life.Lifecycle.Activate();
        Assert.That(life.Metrics, Is.Not.Null);
        Assert.That(life.Metrics!.Disposals, Is.EqualTo(0));

        life.Lifecycle.Close();
        life.Lifecycle.Close();
        Assert.That(life.Metrics.Disposals, Is.EqualTo(1));
    }

    /// <summary>A child that hangs: close gives up after the shutdown timeout, reports the leftover and counts it, and
    /// every event is either delivered or counted.</summary>
    [Test]
    public void CloseWithAHungChild_ReturnsAfterTheTimeout_AndCountsTheLeftover()
    {
        var life = new Life { Timeout = 300 };
        RecordingAppender child = life.AddRecordingChild();
        life.Lifecycle.Activate();
        child.Hold();
        life.Log("e0");
        Assert.That(child.Entered.Wait(Bound), Is.True, "the worker is inside the child with e0");
        for (int i = 1; i < 5; i++)
        {
            life.Log("e" + i);
        }

        Task closing = Task.Run(life.Lifecycle.Close);
        Assert.That(closing.Wait(Bound), Is.True, "Close returns though the child hangs");
        Assert.That(life.Errors, Has.Some.Contains("4 queued event(s) will not be delivered"));

        child.Open(); // the worker returns, delivers its batch, and counts the rest
        AsyncDispatcher<CapturedEvent> dispatcher = life.Lifecycle.Running!;
        Assert.That(SpinWait.SpinUntil(() => child.Count + dispatcher.UndeliveredCount == 5, Bound), Is.True, "every event delivered or counted, once");
        Assert.That(child.Lines, Is.EqualTo(new[] { "e0" }));
        Assert.That(dispatcher.UndeliveredCount, Is.EqualTo(4));
    }

    /// <summary>An async appender's lifecycle without the appender: a bounded queue feeding the children, and the
    /// calling thread's way in before the dispatcher is published (as the appender's <c>DoAppend</c> takes it).</summary>
    private sealed class Life
    {
        private readonly List<AsyncDispatcher<CapturedEvent>> _published = new List<AsyncDispatcher<CapturedEvent>>();
        private readonly ConcurrentQueue<string> _errors = new ConcurrentQueue<string>();
        private AsyncDispatcher<CapturedEvent>? _refused;

        public Life()
        {
            Lifecycle = new AppenderLifecycle(
                new LifecycleHooks(typeof(AppenderLifecycleTests), () => "life", Children, (message, _) => _errors.Enqueue(message), Create)
                {
                    Reactivate = () => Reactivations++,
                    Publish = dispatcher => _published.Add(dispatcher),
                    RegisterMetrics = _ =>
                    {
                        if (FailMetrics)
                        {
                            throw new TypeLoadException("Could not load type 'System.Diagnostics.Metrics.Meter' (refused by the test).");
                        }

                        return Metrics = new CountingDisposable();
                    },
                },
                defaultShutdownTimeout: 5000);
        }

        public ChildAppenders Children { get; } = new ChildAppenders();

        public AppenderLifecycle Lifecycle { get; }

        /// <summary>The worker's thread cannot start: <see cref="Create"/> hands over a dispatcher whose thread it
        /// started itself, so the lifecycle's <c>Start</c> fails in <c>Thread.Start</c>.</summary>
        public bool FailStart { get; set; }

        public bool FailMetrics { get; set; }

        public int Timeout { get; set; } = 2000;

        public int Creates { get; private set; }

        public int Reactivations { get; private set; }

        public CountingDisposable? Metrics { get; private set; }

        public AsyncDispatcher<CapturedEvent>[] Published => _published.ToArray();

        public string[] Errors => _errors.ToArray();

        /// <summary>Activates; with <see cref="FailStart"/>, then stops the thread <see cref="Create"/> started.</summary>
        public void Activate()
        {
            Lifecycle.Activate();
            if (_refused != null)
            {
                Assert.That(_refused.Close(Timeout), Is.True);
                Assert.That(_refused.DeliveredCount, Is.Zero, "the lifecycle put nothing into a dispatcher whose start failed");
            }
        }

        public RecordingAppender AddRecordingChild()
        {
            var child = new RecordingAppender { Name = "child" };
            child.ActivateOptions();
            Children.Add(child);
            return child;
        }

        public void Log(string message)
        {
            var loggingEvent = new LoggingEvent(typeof(AppenderLifecycleTests), null, "lifecycle", Level.Info, message, null);
            if (Lifecycle.Synchronous)
            {
                Lifecycle.ForwardSynchronously(loggingEvent);
                return;
            }

            CapturedEvent captured = CapturedEvent.Capture(loggingEvent, FixResolver.Always);
            Lifecycle.TakeBeforeActivation(in captured, loggingEvent)?.Enqueue(captured, false);
        }

        private AsyncDispatcher<CapturedEvent> Create(out int shutdownTimeout)
        {
            Creates++;
            shutdownTimeout = Timeout;
            var dispatcher = new AsyncDispatcher<CapturedEvent>(
                "lifecycle",
                BoundedQueueFactory.Instance,
                16,
                // A refused dispatcher's close must not close the children the synchronous fallback still calls.
                new ChildrenSink(FailStart ? new ChildAppenders() : Children, typeof(AppenderLifecycleTests), () => "life", (message, _) => _errors.Enqueue(message)),
                OverflowAction.Block,
                16,
                WaitStrategyKind.Blocking,
                Timeout);
            if (FailStart)
            {
                dispatcher.WorkerThread.Start(); // started once already: Thread.Start throws, as when threads are refused
                _refused = dispatcher;
            }

            return dispatcher;
        }
    }

    private sealed class CountingDisposable : IDisposable
    {
        public int Disposals { get; private set; }

        public void Dispose() => Disposals++;
    }

    private sealed class ClosingChild : IAppender
    {
        public string Name { get; set; } = "closing";

        public int Closes { get; private set; }

        public void Close() => Closes++;

        public void DoAppend(LoggingEvent loggingEvent)
        {
        }
    }
}
