using System;
using LowLatencyLog.Engine;

namespace LowLatencyLog.Appender;

/// <summary>
/// An asynchronous forwarding appender over a bounded multi-producer queue: calling threads claim a slot with one
/// compare-and-swap, copy the captured event in, and return; a background worker delivers to the attached appenders.
/// </summary>
/// <remarks>
/// Configure it in front of existing appenders:
/// <code>
/// &lt;appender name="async" type="LowLatencyLog.Appender.BoundedQueueAsyncAppender, LowLatencyLog"&gt;
///   &lt;appender-ref ref="file" /&gt;
/// &lt;/appender&gt;
/// </code>
/// Settings and behaviour are those of <see cref="AsyncForwardingAppender"/>.
/// </remarks>
public sealed class BoundedQueueAsyncAppender : AsyncForwardingAppender
{
    /// <summary>Creates the appender; log4net calls this when it reads the configuration.</summary>
    public BoundedQueueAsyncAppender()
    {
    }

    private protected override IQueueFactory CreateQueueFactory(Action<string> reportError) => BoundedQueueFactory.Instance;
}
