#if NET8_0_OR_GREATER
using System;
using System.Reflection;
using System.Runtime.CompilerServices;
using log4net.Repository.Hierarchy;
using log4net.Util;
#endif
using log4net.Appender;
using log4net.Core;

namespace LowLatencyLog.Log4netInternals;

/// <summary>
/// The appenders log4net's <c>Logger.CallAppenders</c> would call for one logger (the logger, then its parents while
/// additivity holds), and a cheap test that nothing that decides them has changed since: each logger's parent, its
/// appender list (the list object and its version, which log4net bumps on every add or remove) and its additivity.
/// Levels and the repository's threshold are not part of it: the caller asks log4net (<c>IsEnabledFor</c>) every time.
/// </summary>
/// <remarks>Read without log4net's reader lock: a call that races a configuration change goes to the appenders of
/// before or after it, as with the lock. Only in the .NET 8 build (the fields are read through
/// <c>UnsafeAccessor</c>); elsewhere <see cref="Walk"/> answers null.</remarks>
internal sealed class LoggerRoute
{
#if NET8_0_OR_GREATER
    private readonly Link[] _links;

    private LoggerRoute(Link[] links, IAppender[] appenders)
    {
        _links = links;
        Appenders = appenders;
    }

    /// <summary>The appenders, in log4net's calling order.</summary>
    public IAppender[] Appenders { get; }

    private readonly struct Link
    {
        public Link(Logger logger, Logger? parent, object? attached, object? list, int version, bool additive)
        {
            Logger = logger;
            Parent = parent;
            Attached = attached;
            List = list;
            Version = version;
            Additive = additive;
        }

        public Logger Logger { get; }

        public Logger? Parent { get; }

        public object? Attached { get; }

        public object? List { get; }

        public int Version { get; }

        public bool Additive { get; }
    }

    /// <summary>The route of <paramref name="logger"/>, or null when it is not log4net's own hierarchy logger (a
    /// logger of another repository type or factory may log its own way) or this log4net lacks the fields.</summary>
    public static LoggerRoute? Walk(ILogger logger)
    {
        if (logger is not Logger first || !IsPlain(first.GetType()))
        {
            return null;
        }

        try
        {
            var links = new System.Collections.Generic.List<Link>(2);
            var appenders = new System.Collections.Generic.List<IAppender>(2);
            for (Logger? c = first; c != null; c = Parent(c))
            {
                AppenderAttachedImpl? attached = Attached(c);
                AppenderCollection? list = attached == null ? null : List(attached);
                bool additive = c.Additivity;
                links.Add(new Link(c, Parent(c), attached, list, list == null ? 0 : Version(list), additive));
                if (list != null)
                {
                    foreach (IAppender appender in list.ToArray())
                    {
                        appenders.Add(appender);
                    }
                }

                if (!additive)
                {
                    break;
                }
            }

            return new LoggerRoute(links.ToArray(), appenders.ToArray());
        }
        catch (Exception e) when (e is MissingFieldException or MissingMethodException)
        {
            return null;
        }
    }

    /// <summary>Whether the loggers, their appender lists and additivity are still what <see cref="Walk"/> read.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool IsCurrent()
    {
        foreach (Link link in _links)
        {
            Logger logger = link.Logger;
            AppenderAttachedImpl? attached = Attached(logger);
            if (!ReferenceEquals(attached, link.Attached) || !ReferenceEquals(Parent(logger), link.Parent) || logger.Additivity != link.Additive)
            {
                return false;
            }

            if (attached != null)
            {
                AppenderCollection? list = List(attached);
                if (!ReferenceEquals(list, link.List) || (list != null && Version(list) != link.Version))
                {
                    return false;
                }
            }
        }

        return true;
    }

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_parent")]
    private static extern ref Logger? ParentField(Logger logger);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_appenderAttachedImpl")]
    private static extern ref AppenderAttachedImpl? AttachedField(Logger logger);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_appenderList")]
    private static extern ref AppenderCollection? ListField(AppenderAttachedImpl attached);

    [UnsafeAccessor(UnsafeAccessorKind.Field, Name = "_version")]
    private static extern ref int VersionField(AppenderCollection list);

    private static Logger? Parent(Logger logger) => ParentField(logger);

    private static AppenderAttachedImpl? Attached(Logger logger) => AttachedField(logger);

    private static AppenderCollection? List(AppenderAttachedImpl attached) => ListField(attached);

    private static int Version(AppenderCollection list) => VersionField(list);

    /// <summary>Whether this log4net has the fields (checked once; a later log4net may rename them).</summary>
    internal static bool Readable { get; } = Probe();

    private static bool Probe()
    {
        try
        {
            var hierarchy = new Hierarchy();
            Logger logger = hierarchy.GetLogger("probe.child") as Logger ?? throw new MissingFieldException();
            var list = new AppenderCollection();
            int before = Version(list);
            list.Add(new log4net.Appender.MemoryAppender());
            return ReferenceEquals(Parent(logger), hierarchy.Root) && Attached(logger) == null && Version(list) != before;
        }
        catch (Exception e) when (e is MissingFieldException or MissingMethodException or InvalidCastException)
        {
            return false;
        }
    }

    // Per logger type: whether it logs as log4net's Logger does (a factory's subclass may override the walk or the check).
    private static readonly ConditionalWeakTable<Type, object> Plain = new ConditionalWeakTable<Type, object>();

    private static bool IsPlain(Type type) => Readable && (bool)Plain.GetValue(type, t => Inherits(t));

    private static bool Inherits(Type type)
    {
        const BindingFlags Instance = BindingFlags.Instance | BindingFlags.Public | BindingFlags.NonPublic;
        foreach (MethodInfo method in type.GetMethods(Instance))
        {
            if (method.Name is "CallAppenders" or "Log" or "ForcedLog" or "IsEnabledFor" or "get_Additivity" or "get_Parent" &&
                method.DeclaringType != typeof(Logger))
            {
                return false;
            }
        }

        return true;
    }
#else
    /// <summary>Never read in this build.</summary>
    public IAppender[] Appenders => new IAppender[0];

    /// <summary>The netstandard2.0 build has no route: every call goes through log4net.</summary>
    public static LoggerRoute? Walk(ILogger logger) => null;

    /// <summary>Never called in this build.</summary>
    public bool IsCurrent() => false;

    internal static bool Readable => false;
#endif
}
