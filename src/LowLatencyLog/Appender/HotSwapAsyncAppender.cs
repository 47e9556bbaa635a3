using System;
using LowLatencyLog.Engine;

namespace LowLatencyLog.Appender;

/// <summary>
/// An asynchronous forwarding appender over two buffers swapped between the calling threads and the worker: callers
/// claim a slot with one atomic increment; the worker drains the buffer callers no longer write to.
/// </summary>
/// <remarks>
/// Configure it in front of existing appenders:
/// <code>
/// &lt;appender name="async" type="LowLatencyLog.Appender.HotSwapAsyncAppender, LowLatencyLog"&gt;
///   &lt;appender-ref ref="file" /&gt;
/// &lt;/appender&gt;
/// </code>
/// Settings and behaviour are those of <see cref="AsyncForwardingAppender"/>; <c>bufferSize</c> is split between the two
/// buffers, so the appender holds at most that many events, and while the worker is stuck on one buffer (a stalled
/// child) the callers have the other half.
/// </remarks>
public sealed class HotSwapAsyncAppender : AsyncForwardingAppender
{
    /// <summary>Creates the appender; log4net calls this when it reads the configuration.</summary>
    public HotSwapAsyncAppender()
    {
    }

    private protected override IQueueFactory CreateQueueFactory(Action<string> reportError) => HotSwapQueueFactory.Instance;
}
