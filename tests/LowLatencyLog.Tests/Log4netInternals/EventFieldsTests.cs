using System;
using System.Globalization;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using log4net.Appender;
using log4net.Core;
using log4net.Repository;
using LowLatencyLog.Capture;
using LowLatencyLog.Log4netInternals;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Log4netInternals;

/// <summary>The reads the producer makes without the getters' caching answer what the getters answer.</summary>
public sealed class EventFieldsTests
{
    [Test]
    public void Domain_IsWhatTheGetterReturns_ForEveryKindOfEvent()
    {
        ILoggerRepository repository = log4net.LogManager.CreateRepository("event-fields-" + Guid.NewGuid().ToString("N"));
        LoggingEvent Logged() => new LoggingEvent(typeof(EventFieldsTests), repository, "logger", Level.Info, "message", null);

        LoggingEvent fresh = Logged();
        Assert.That(EventFields.Domain(fresh), Is.EqualTo(CapturedContext.ProcessDomain).And.EqualTo(fresh.Domain));

        LoggingEvent frozen = Logged();
        new MemoryAppender { Fix = FixFlags.None }.DoAppend(frozen); // frozen before anything read the domain
        Assert.That(EventFields.Domain(frozen), Is.Null.And.EqualTo(frozen.Domain));

        var remote = new LoggingEvent(new LoggingEventData { LoggerName = "remote", Domain = "RemoteDomain" });
        Assert.That(EventFields.Domain(remote), Is.EqualTo("RemoteDomain").And.EqualTo(remote.Domain));

        var noDomain = new LoggingEvent(new LoggingEventData { LoggerName = "remote" });
        Assert.That(EventFields.Domain(noDomain), Is.EqualTo(noDomain.Domain), "built from data with no domain: still updatable");
    }

    [Test]
    public void ThreadName_IsWhatTheGetterReturns_OnEveryKindOfThread_WithoutWritingIntoTheEvent()
    {
        ILoggerRepository repository = log4net.LogManager.CreateRepository("event-fields-" + Guid.NewGuid().ToString("N"));
        LoggingEvent Logged() => new LoggingEvent(typeof(EventFieldsTests), repository, "logger", Level.Info, "message", null);

        // On each thread: twice, each time against the getter of a fresh event. The first read asks log4net's getter
        // (which writes into that event); the second comes from the thread's memory, so its event, frozen afterwards,
        // reads back null (the fifth answer). The netstandard2.0 build calls the getter every time.
        string?[] ReadTwice()
        {
            var answers = new string?[5];
            for (int i = 0; i < 2; i++)
            {
                LoggingEvent read = Logged();
                answers[2 * i] = EventFields.ThreadName(read);
                read.Fix = FixFlags.None;
                if (i == 1)
                {
                    answers[4] = read.ThreadName;
                }

                answers[2 * i + 1] = Logged().ThreadName;
            }

            return answers;
        }

        // Asserted on the test's thread: an assertion failing on another thread would end the test process.
        void AssertRead(string?[] answers, string? expected, string what)
        {
            Assert.That(answers.Take(4), Is.All.EqualTo(expected), what);
            Assert.That(answers[4], EventFields.ReadsFields ? Is.Null : Is.EqualTo(expected), what + ": the second read left the shared event as it was");
        }

        string?[] OnThread(string? name, Action? between = null)
        {
            string?[]? answers = null;
            var thread = new Thread(() =>
            {
                answers = ReadTwice();
                if (between != null)
                {
                    between();
                    answers = ReadTwice();
                }
            });
            if (name != null)
            {
                thread.Name = name;
            }

            thread.Start();
            thread.Join();
            return answers!;
        }

        AssertRead(OnThread("orders"), "orders", "a named thread");
        string?[] unnamed = OnThread(null);
        Assert.That(int.TryParse(unnamed[1], NumberStyles.None, CultureInfo.InvariantCulture, out _), Is.True, "the thread id, as log4net writes it");
        AssertRead(unnamed, unnamed[1], "an unnamed thread");
        string?[] pool = Task.Run(ReadTwice).GetAwaiter().GetResult();
        AssertRead(pool, pool[1], "a thread-pool thread, which log4net names by its id");
        AssertRead(OnThread(null, () => Thread.CurrentThread.Name = "renamed"), "renamed", "a name given after the thread's first event");

        LoggingEvent frozen = Logged();
        new MemoryAppender { Fix = FixFlags.None }.DoAppend(frozen);
        Assert.That(EventFields.ThreadName(frozen), Is.Null.And.EqualTo(frozen.ThreadName));

        var remote = new LoggingEvent(new LoggingEventData { LoggerName = "remote", ThreadName = "remote thread" });
        Assert.That(EventFields.ThreadName(remote), Is.EqualTo("remote thread").And.EqualTo(remote.ThreadName));

        var noThread = new LoggingEvent(new LoggingEventData { LoggerName = "remote" });
        Assert.That(EventFields.ThreadName(noThread), Is.EqualTo(Logged().ThreadName).And.EqualTo(noThread.ThreadName), "built from data with no thread name: still updatable");
    }
}
