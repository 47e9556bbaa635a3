using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Xml;
using log4net;
using log4net.Appender;
using log4net.Config;
using log4net.Repository;
using log4net.Repository.Hierarchy;
using log4net.Util;

namespace LowLatencyLog.Tests.Support;

/// <summary>
/// A private log4net repository configured from XML the way users configure it, a temp folder for its files, and a
/// record of everything log4net's internal log said while it was alive. Dispose shuts the repository down and deletes
/// the folder.
/// </summary>
/// <remarks>
/// <c>{dir}</c> in the XML is replaced by the temp folder (with a trailing separator), so a config can say
/// <c>&lt;file value="{dir}app.log" /&gt;</c>; <c>{repo}</c> is replaced by the repository's name.
/// </remarks>
public sealed class Log4netHarness : IDisposable
{
    private readonly List<LogLog> _internal = new List<LogLog>();
    private readonly object _lock = new object();
    private bool _shutDown;

    public Log4netHarness(string xml, string? directory = null)
    {
        Directory = directory ?? Path.Combine(Path.GetTempPath(), "lll-" + Guid.NewGuid().ToString("N"));
        System.IO.Directory.CreateDirectory(Directory);
        LogLog.LogReceived += OnLogReceived;
        Repository = LogManager.CreateRepository("lll-test-" + Guid.NewGuid().ToString("N"));
        Configure(xml);
    }

    /// <summary>The temp folder; it ends without a separator.</summary>
    public string Directory { get; }

    public ILoggerRepository Repository { get; }

    public Hierarchy Hierarchy => (Hierarchy)Repository;

    /// <summary>What log4net's internal log said (debug lines only when internal debugging is on).</summary>
    public LogLog[] InternalMessages
    {
        get { lock (_lock) return _internal.ToArray(); }
    }

    public string[] InternalErrors => Messages("ERROR");

    public string[] InternalWarnings => Messages("WARN");

    public ILog Logger(string name = "test") => LogManager.GetLogger(Repository.Name, name);

    /// <summary>The internal messages (any level) whose text contains <paramref name="text"/>.</summary>
    public string[] InternalMessagesContaining(string text) =>
        InternalMessages.Where(m => m.Message.Contains(text)).Select(m => m.Prefix + m.Message).ToArray();

    /// <summary>Configures (or reconfigures) the repository from a <c>&lt;log4net&gt;</c> element.</summary>
    public void Configure(string xml)
    {
        var document = new XmlDocument();
        document.LoadXml(xml.Replace("{dir}", Directory + Path.DirectorySeparatorChar).Replace("{repo}", Repository.Name));
        XmlConfigurator.Configure(Repository, document.DocumentElement!);
    }

    /// <summary>The appender of that name, searching nested appenders too.</summary>
    public T Appender<T>(string name) where T : class, IAppender =>
        Hierarchy.GetAppenders().OfType<T>().Single(a => a.Name == name);

    public string PathOf(string fileName) => Path.Combine(Directory, fileName);

    public string[] ReadLines(string fileName) => File.ReadAllLines(PathOf(fileName));

    /// <summary>Shuts the repository down (closing every appender); later calls do nothing.</summary>
    public void Shutdown()
    {
        if (!_shutDown)
        {
            _shutDown = true;
            Repository.Shutdown();
        }
    }

    public void Dispose()
    {
        Shutdown();
        LogLog.LogReceived -= OnLogReceived;
        try
        {
            System.IO.Directory.Delete(Directory, recursive: true);
        }
        catch (IOException)
        {
            // A child process may still hold a file; the temp folder is cleaned by the OS eventually.
        }
        catch (UnauthorizedAccessException)
        {
        }
    }

    private string[] Messages(string prefix)
    {
        lock (_lock)
        {
            return _internal.Where(m => m.Prefix.Contains(prefix)).Select(m => m.Message + (m.Exception == null ? "" : " " + m.Exception)).ToArray();
        }
    }

    private void OnLogReceived(object? sender, LogReceivedEventArgs e)
    {
        lock (_lock)
        {
            _internal.Add(e.LogLog);
        }
    }
}
