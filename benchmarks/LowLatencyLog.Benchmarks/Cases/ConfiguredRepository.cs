using System;
using System.Linq;
using System.Xml;
using log4net;
using log4net.Config;
using log4net.Repository;
using LowLatencyLog.Appender;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>
/// A private log4net repository configured from a <c>&lt;log4net&gt;</c> element, the way users configure it, with the
/// logger the benchmark calls and its first async appender (for draining between iterations).
/// </summary>
internal sealed class ConfiguredRepository
{
    public ConfiguredRepository(string xml, string loggerName)
    {
        Repository = LogManager.CreateRepository("lll-bench-" + Guid.NewGuid().ToString("N"));
        var document = new XmlDocument();
        document.LoadXml(xml);
        XmlConfigurator.Configure(Repository, document.DocumentElement!);
        if (!Repository.Configured)
        {
            throw new InvalidOperationException("log4net did not accept the configuration:\n" + xml);
        }

        Log = LogManager.GetLogger(Repository.Name, loggerName);
        Async = Repository.GetAppenders().OfType<AsyncForwardingAppender>().FirstOrDefault();
    }

    public ILoggerRepository Repository { get; }

    public ILog Log { get; }

    /// <summary>The first of our async appenders in the configuration, or null.</summary>
    public AsyncForwardingAppender? Async { get; }

    /// <summary>Waits until the async appender has delivered everything logged so far.</summary>
    public void Drain() => Async?.Flush(60_000);
}
