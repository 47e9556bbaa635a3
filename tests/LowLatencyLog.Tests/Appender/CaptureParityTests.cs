using System;
using System.Globalization;
using System.IO;
using System.Linq;
using log4net;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using log4net.ObjectRenderer;
using log4net.Repository.Hierarchy;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Appender;

/// <summary>
/// Events that reach the async appender in an unusual state: frozen by an earlier appender, built from
/// <see cref="LoggingEventData"/>, with null properties or an object message. A child behind the async appender writes
/// what the same appender writes attached directly, and a sibling after it sees the event as without it.
/// </summary>
public sealed class CaptureParityTests
{
    private readonly PrivateRepositories _repositories = new PrivateRepositories("capture-parity-");

    [TearDown]
    public void ShutDownRepositories()
    {
        _repositories.ShutDownAll();
    }

    [Test]
    public void AnEventAnEarlierAppenderFrozeWithoutItsMessage_KeepsItsMessageAndDomain()
    {
        // MemoryAppender with Fix=None freezes the event: RenderedMessage and Domain read null from then on, while
        // %message still writes the string (WriteRenderedMessage falls back to the message object).
        AssertSameAsDirect("%message|%appdomain|%level%n", log => { log.Info("hello"); log.Info(42); },
            before: () => new MemoryAppender { Fix = FixFlags.None });
    }

    [Test]
    public void AnEventBuiltFromLoggingEventData_KeepsItsDomain()
    {
        AssertSameAsDirect("%appdomain|%message%n", log => log.Logger.Log(new LoggingEvent(typeof(CaptureParityTests), log.Logger.Repository,
            new LoggingEventData { LoggerName = "remote", Level = Level.Info, Message = "from elsewhere", Domain = "RemoteDomain", TimeStampUtc = DateTime.UtcNow })));
    }

    [Test]
    public void ANullProperty_IsWrittenAsForTheLiveEvent()
    {
        AssertSameAsDirect("%property{nul}|%properties%n", log =>
        {
            LogicalThreadContext.Properties["nul"] = null;
            try
            {
                log.Info("m");
            }
            finally
            {
                LogicalThreadContext.Properties.Remove("nul");
            }
        });
    }

    [Test]
    public void ASiblingThatFixesUserNameAndIdentity_StillFindsThemInItsProperties()
    {
        // log4net builds the composite properties once, from the fix flags of the moment; the capture must not leave
        // one built before the sibling's Fix adds log4net:UserName and log4net:Identity.
        string[] Keys(bool withAsync)
        {
            var (logger, log) = NewLogger();
            if (withAsync)
            {
                logger.AddAppender(Async(new StringAppender("%properties%n")));
            }

            var sibling = new MemoryAppender { Fix = FixFlags.All };
            logger.AddAppender(sibling);
            log.Info("m");
            return sibling.PopAllEvents().Single().GetProperties().GetKeys().OrderBy(k => k, StringComparer.Ordinal).ToArray();
        }

        string[] without = Keys(withAsync: false);
        Assert.That(without, Does.Contain(LoggingEvent.UserNameProperty).And.Contain(LoggingEvent.IdentityProperty));
        Assert.That(Keys(withAsync: true), Is.EqualTo(without));
    }

    [Test]
    public void AnObjectMessageWithACultureSensitiveRenderer_IsRenderedBySiblingsWithTheirOwnWriter()
    {
        // RenderedMessage renders with the invariant culture and caches the text in the shared event; a sibling's own
        // writer (German here) must still be the one its renderer formats with.
        string Sibling(bool withAsync)
        {
            var (logger, log) = NewLogger();
            logger.Hierarchy!.RendererMap.Put(typeof(Amount), new AmountRenderer());
            if (withAsync)
            {
                logger.AddAppender(Async(new StringAppender("%message%n")));
            }

            var sibling = new StringAppender("%message%n", new CultureInfo("de-DE"));
            logger.AddAppender(sibling);
            log.Info(new Amount(1234.5));
            return sibling.Text;
        }

        Assert.That(Sibling(withAsync: false), Is.EqualTo("1.234,50" + Environment.NewLine));
        Assert.That(Sibling(withAsync: true), Is.EqualTo(Sibling(withAsync: false)));
    }

    private void AssertSameAsDirect(string pattern, Action<ILog> act, Func<IAppender>? before = null)
    {
        var (directLogger, directLog) = NewLogger();
        if (before != null)
        {
            directLogger.AddAppender(before());
        }

        var direct = new StringAppender(pattern);
        directLogger.AddAppender(direct);
        act(directLog);

        var (asyncLogger, asyncLog) = NewLogger();
        if (before != null)
        {
            asyncLogger.AddAppender(before());
        }

        var child = new StringAppender(pattern);
        AsyncForwardingAppender async = Async(child);
        asyncLogger.AddAppender(async);
        act(asyncLog);
        Assert.That(async.Flush(10_000), Is.True);

        Assert.That(direct.Text, Is.Not.Empty);
        Assert.That(child.Text, Is.EqualTo(direct.Text));
    }

    private AsyncForwardingAppender Async(IAppender child)
    {
        var async = new BoundedQueueAsyncAppender { Name = "capture-parity-async" };
        async.AddAppender(child);
        async.ActivateOptions();
        return async;
    }

    private (Logger Logger, ILog Log) NewLogger() => _repositories.NewLogger("parity");

    private sealed class StringAppender : TextWriterAppender
    {
        private readonly StringWriter _writer;

        public StringAppender(string pattern, IFormatProvider? culture = null)
        {
            Name = "string";
            _writer = new StringWriter(culture ?? CultureInfo.CurrentCulture);
            Writer = _writer;
            var layout = new PatternLayout(pattern);
            layout.ActivateOptions();
            Layout = layout;
            ImmediateFlush = true;
            ActivateOptions();
        }

        public string Text => _writer.ToString();
    }

    private sealed record Amount(double Value);

    private sealed class AmountRenderer : IObjectRenderer
    {
        public void RenderObject(RendererMap rendererMap, object obj, TextWriter writer) =>
            writer.Write(((Amount)obj).Value.ToString("N2", writer.FormatProvider));
    }
}
