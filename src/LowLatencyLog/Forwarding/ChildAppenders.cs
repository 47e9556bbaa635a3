using System;
using log4net.Appender;

namespace LowLatencyLog.Forwarding;

/// <summary>
/// The child appenders of an async appender: attached and detached under a lock, read without one as an array that a
/// change replaces, so the worker takes one snapshot per batch.
/// </summary>
internal sealed class ChildAppenders
{
    private readonly object _lock = new object();
    private volatile IAppender[] _items = Array.Empty<IAppender>();

    /// <summary>The children attached now (never modified: a change replaces the array).</summary>
    public IAppender[] Current => _items;

    /// <summary>Whether any of <paramref name="children"/> may read an event's original message and exception objects:
    /// every child but the library's own appenders that write captured events as they are.</summary>
    public static bool MayReadEventObjects(IAppender[] children)
    {
        foreach (IAppender child in children)
        {
            if (child is not ICapturedEventAppender direct || direct.MayReadEventObjects)
            {
                return true;
            }
        }

        return false;
    }

    /// <summary>Attaches <paramref name="appender"/>; false if it was already attached.</summary>
    public bool Add(IAppender appender)
    {
        lock (_lock)
        {
            IAppender[] current = _items;
            if (Array.IndexOf(current, appender) >= 0)
            {
                return false;
            }

            var next = new IAppender[current.Length + 1];
            current.CopyTo(next, 0);
            next[next.Length - 1] = appender;
            _items = next;
            return true;
        }
    }

    /// <summary>The attached child of that name, or null.</summary>
    public IAppender? Get(string name)
    {
        foreach (IAppender child in _items)
        {
            if (child.Name == name)
            {
                return child;
            }
        }

        return null;
    }

    /// <summary>Detaches <paramref name="appender"/>; false if it was not attached.</summary>
    public bool Remove(IAppender appender)
    {
        lock (_lock)
        {
            IAppender[] current = _items;
            int index = Array.IndexOf(current, appender);
            if (index < 0)
            {
                return false;
            }

            var next = new IAppender[current.Length - 1];
            Array.Copy(current, 0, next, 0, index);
            Array.Copy(current, index + 1, next, index, next.Length - index);
            _items = next;
            return true;
        }
    }

    /// <summary>Detaches every child and returns them.</summary>
    public IAppender[] RemoveAll()
    {
        lock (_lock)
        {
            IAppender[] removed = _items;
            _items = Array.Empty<IAppender>();
            return removed;
        }
    }
}
