using System;
using System.Collections.Generic;
using System.Linq;
using LowLatencyLog.Appender;

namespace LowLatencyLog.Tests.Support;

/// <summary>The async appenders the contract suites run against, as config files name them.</summary>
public sealed class AsyncAppenderKind
{
    /// <summary>One line per appender type.</summary>
    public static readonly string[] TypeNames =
    {
        nameof(BoundedQueueAsyncAppender),
        nameof(HotSwapAsyncAppender),
        nameof(DisruptorAsyncAppender),
    };

    private AsyncAppenderKind(string typeName) => TypeName = typeName;

    public static IEnumerable<AsyncAppenderKind> All => TypeNames.Select(n => new AsyncAppenderKind(n));

    public string TypeName { get; }

    /// <summary>Whether <c>overflow=Grow</c> is valid for this appender (not for the Disruptor ring).</summary>
    public bool SupportsGrow => TypeName != nameof(DisruptorAsyncAppender);

    /// <summary>The <c>type</c> attribute of the appender element.</summary>
    public string TypeAttribute => $"LowLatencyLog.Appender.{TypeName}, LowLatencyLog";

    public Type Type => typeof(AsyncForwardingAppender).Assembly.GetType("LowLatencyLog.Appender." + TypeName, throwOnError: true)!;

    public AsyncForwardingAppender Create() => (AsyncForwardingAppender)Activator.CreateInstance(Type)!;

    /// <summary>The appender of type <paramref name="typeName"/>, named, with <paramref name="child"/> attached, activated.</summary>
    public static AsyncForwardingAppender Activated(string typeName, string name, log4net.Appender.IAppender child)
    {
        AsyncForwardingAppender async = new AsyncAppenderKind(typeName).Create();
        async.Name = name;
        async.AddAppender(child);
        async.ActivateOptions();
        return async;
    }

    public override string ToString() => TypeName;
}
