using System;
using System.Collections.Generic;
using System.Threading;
using log4net;
using log4net.Core;
using log4net.Repository.Hierarchy;

namespace LowLatencyLog.Tests.Support;

/// <summary>
/// A test's own log4net repositories, each with one logger at level ALL that does not pass events to the root; shut
/// down together, which closes their async appenders (an open one stays in the library's metrics, which other tests
/// read).
/// </summary>
internal sealed class PrivateRepositories
{
    private static int s_count;
    private readonly string _prefix;
    private readonly List<Hierarchy> _created = new List<Hierarchy>();

    public PrivateRepositories(string prefix) => _prefix = prefix;

    /// <summary>A new repository's logger named <paramref name="name"/>, and the <see cref="ILog"/> over it.</summary>
    public (Logger Logger, ILog Log) NewLogger(string name)
    {
        var repository = (Hierarchy)LogManager.CreateRepository(_prefix + Interlocked.Increment(ref s_count) + "-" + Guid.NewGuid().ToString("N"));
        _created.Add(repository);
        var logger = (Logger)repository.GetLogger(name);
        logger.Level = Level.All;
        logger.Additivity = false;
        repository.Configured = true;
        return (logger, LogManager.GetLogger(repository.Name, name));
    }

    public void ShutDownAll()
    {
        foreach (Hierarchy repository in _created)
        {
            repository.Shutdown();
        }

        _created.Clear();
    }
}
