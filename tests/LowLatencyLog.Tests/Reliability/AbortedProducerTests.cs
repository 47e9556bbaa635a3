using System;
using System.Linq;
using System.Threading;
using log4net.Core;
using log4net.Filter;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Reliability;

/// <summary>
/// On .NET Framework (and Mono) an abort, such as an ASP.NET request timeout, is raised again at the end of every
/// <c>catch</c>; the thread may then <c>ResetAbort</c> and go back to the pool. A producer aborted inside the async
/// appender must not leave its re-entrancy guard set, or every later call from that thread would be dropped as
/// re-entrant. .NET cannot abort a thread, so there the test is ignored; it runs wherever the suite runs on Mono.
/// </summary>
public sealed class AbortedProducerTests
{
    [TestCaseSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.TypeNames))]
    public void AProducerAbortedInsideTheAppender_ItsNextCallIsTaken(string type)
    {
        var child = new RecordingAppender { Name = "child" };
        AsyncForwardingAppender async = AsyncAppenderKind.Activated(type, "async", child);
        var abort = new AbortsItsThreadOnce();
        async.AddFilter(abort);
        bool aborted = false;
        try
        {
            var thread = new Thread(() =>
            {
                try
                {
                    async.DoAppend(Event("aborted"));
                }
#pragma warning disable SYSLIB0006 // Thread.ResetAbort: .NET Framework and Mono only, and what this test is about
                catch (ThreadAbortException)
                {
                    aborted = true;
                    Thread.ResetAbort();
                }
#pragma warning restore SYSLIB0006

                async.DoAppend(Event("after the abort"));
            });
            thread.Start();
            Assert.That(thread.Join(TimeSpan.FromSeconds(30)), Is.True);
            if (!abort.Supported)
            {
                Assert.Ignore("This runtime cannot abort a thread (only .NET Framework and Mono can).");
            }

            Assert.That(async.Flush(30_000), Is.True);
            Assert.That(aborted, Is.True, "the abort reached the thread's own code");
            Assert.That(child.Events.Select(e => e.RenderedMessage), Is.EqualTo(new[] { "after the abort" }), "the next call is taken");
            Assert.That(async.ReentrantCount, Is.Zero, "nothing dropped as re-entrant");
        }
        finally
        {
            async.Close();
        }
    }

    private static LoggingEvent Event(string message) =>
        new LoggingEvent(typeof(AbortedProducerTests), null, "app", Level.Info, message, null);

    /// <summary>Aborts the thread it runs on, once, as a request timeout would while the thread is inside the appender.</summary>
    private sealed class AbortsItsThreadOnce : FilterSkeleton
    {
        private int _left = 1;

        public bool Supported { get; private set; } = true;

        public override FilterDecision Decide(LoggingEvent loggingEvent)
        {
            if (Interlocked.Exchange(ref _left, 0) == 1)
            {
                try
                {
#pragma warning disable SYSLIB0006 // Thread.Abort: .NET Framework and Mono only, and what this test is about
                    Thread.CurrentThread.Abort();
#pragma warning restore SYSLIB0006
                }
                catch (PlatformNotSupportedException)
                {
                    Supported = false;
                }
            }

            return FilterDecision.Neutral;
        }
    }
}
