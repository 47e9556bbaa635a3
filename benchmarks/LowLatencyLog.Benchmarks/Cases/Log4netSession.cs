using System;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using log4net;
using log4net.Appender;
using log4net.Repository;
using log4net.Repository.Hierarchy;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>
/// A private log4net repository configured from a <c>&lt;log4net&gt;</c> element, the way users configure it.
/// <c>{dir}</c> in the XML is the session's folder (with a trailing separator).
/// </summary>
internal sealed class Log4netSession : BenchSession
{
    private readonly ILoggerRepository _repository;
    private readonly ILog _log;
    private readonly IAppender? _counter;
    private readonly bool _intercepted;

    /// <param name="xml">The configuration.</param>
    /// <param name="kind">What every call logs.</param>
    /// <param name="counterAppender">
    /// The name of an appender with a public <c>Count</c> (our <c>NullAppender</c>) whose count is what
    /// <see cref="Delivered"/> reports, for cases that write no file; null to count lines on disk.
    /// </param>
    /// <param name="intercepted">Log through the calls the call-site generator intercepts.</param>
    public Log4netSession(string xml, string? counterAppender, MessageKind kind, bool intercepted = false)
        : base(NewFolder(), kind)
    {
        _intercepted = intercepted;
        var configured = new ConfiguredRepository(xml.Replace("{dir}", Folder + Path.DirectorySeparatorChar), BenchMessage.Logger);
        _repository = configured.Repository;
        _log = configured.Log;
        if (counterAppender != null)
        {
            // Kept now: the repository forgets its appenders when it shuts down.
            _counter = ((Hierarchy)_repository).GetAppenders().FirstOrDefault(a => a.Name == counterAppender)
                ?? throw new InvalidOperationException($"No appender named {counterAppender} after configuration (see log4net's internal errors above).");
        }
    }

    public override void Log(int i) => MessageKinds.Log(_log, Kind, i, _intercepted);

    public override long Delivered()
    {
        if (_counter == null)
        {
            return base.Delivered();
        }

        // The type is not compiled in (it may not exist yet), so its count is read by name.
        PropertyInfo count = _counter.GetType().GetProperty("Count")
            ?? throw new InvalidOperationException(_counter.GetType() + " has no Count property.");
        return Convert.ToInt64(count.GetValue(_counter), CultureInfo.InvariantCulture);
    }

    protected override void OnStop() => _repository.Shutdown();
}
