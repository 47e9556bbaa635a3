using System;
using System.Diagnostics;
using System.IO;
using System.IO.Pipes;
using System.Threading;
using System.Threading.Tasks;
using log4net.Appender;
using log4net.Core;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Reliability;

/// <summary>
/// A child blocked in a native write (a pipe nobody reads) looks like a running thread: the stall is still seen, from
/// the worker's lack of progress, and under <c>Block</c> the logging threads stop waiting and count their events as
/// discarded until the child moves again.
/// </summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class NativeStallTests
{
    private readonly AsyncAppenderKind _kind;

    public NativeStallTests(AsyncAppenderKind kind) => _kind = kind;

    [Test]
    public void AChildBlockedWritingToAPipeNobodyReads_ProducersStopWaiting_AndTheLossIsCounted()
    {
        using var server = new AnonymousPipeServerStream(PipeDirection.In);
        using var client = new AnonymousPipeClientStream(PipeDirection.Out, server.ClientSafePipeHandle);
        var child = new PipeAppender(client) { Name = "pipe" };
        AsyncForwardingAppender async = _kind.Create();
        async.Name = "async";
        async.BufferSize = "8";
        async.ShutdownTimeout = "300";
        async.AddAppender(child);
        async.ActivateOptions();

        var clock = Stopwatch.StartNew();
        Task logging = Task.Run(() =>
        {
            for (int i = 0; i < 2000; i++)
            {
                async.DoAppend(new LoggingEvent(typeof(NativeStallTests), null, "stall", Level.Info, "event " + i, null));
            }
        });
        bool returned = logging.Wait(TimeSpan.FromSeconds(60));
        TestContext.Out.WriteLine($"{_kind}: the logging loop returned after {clock.ElapsedMilliseconds} ms, {async.DiscardedCount} discarded");

        // Unblock the child: read the pipe until the appender is closed.
        using var drain = new CancellationTokenSource();
        Task reader = Task.Run(() =>
        {
            var buffer = new byte[65536];
            while (!drain.IsCancellationRequested && server.Read(buffer, 0, buffer.Length) > 0)
            {
            }
        });
        async.Close();
        drain.Cancel();
        client.Dispose();
        reader.Wait(TimeSpan.FromSeconds(10));

        Assert.That(returned, Is.True, "the producers stopped waiting for a worker that made no progress");
        Assert.That(async.DiscardedCount, Is.GreaterThan(0), "their events were counted as discarded");
    }

    /// <summary>Writes each event's message, padded to 1 KB, to a pipe: once the pipe is full, a write blocks in the
    /// operating system, not in a managed wait.</summary>
    private sealed class PipeAppender : AppenderSkeleton
    {
        private readonly Stream _pipe;
        private readonly byte[] _line = new byte[1024];

        public PipeAppender(Stream pipe) => _pipe = pipe;

        protected override void Append(LoggingEvent loggingEvent)
        {
            _pipe.Write(_line, 0, _line.Length);
        }
    }
}
