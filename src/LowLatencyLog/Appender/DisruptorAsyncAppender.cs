using System;
using LowLatencyLog.Configuration;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine;

namespace LowLatencyLog.Appender;

/// <summary>
/// An asynchronous forwarding appender over a Disruptor ring buffer: pre-allocated slots that calling threads fill in
/// place, sequences instead of locks, and a worker that takes the whole published range at once. The ring is the
/// project's own implementation of the LMAX Disruptor design (docs/disruptor.md).
/// </summary>
/// <remarks>
/// Configure it in front of existing appenders:
/// <code>
/// &lt;appender name="async" type="LowLatencyLog.Appender.DisruptorAsyncAppender, LowLatencyLog"&gt;
///   &lt;bufferSize value="8192" /&gt;
///   &lt;producerType value="Multi" /&gt;
///   &lt;appender-ref ref="file" /&gt;
/// &lt;/appender&gt;
/// </code>
/// Settings and behaviour are those of <see cref="AsyncForwardingAppender"/>, with two differences: <c>bufferSize</c>
/// must be a power of two, and <c>overflow=Grow</c> is not accepted (a ring of pre-allocated slots does not grow). Either
/// mistake is reported through log4net's internal log and the default is used.
/// </remarks>
public sealed class DisruptorAsyncAppender : AsyncForwardingAppender
{
    /// <summary>Creates the appender; log4net calls this when it reads the configuration.</summary>
    public DisruptorAsyncAppender()
    {
    }

    /// <summary>How calling threads claim slots (setting <c>producerType</c>): <c>Multi</c> (any number of threads) or
    /// <c>Single</c> (one thread only, without interlocked operations). With <c>Single</c>, a second thread that logs
    /// (including a child appender that logs back from the worker) is reported as an error and the ring switches to
    /// the <c>Multi</c> claim, so no event is lost.</summary>
    /// <remarks>Default: <c>Multi</c>.</remarks>
    public string? ProducerType { get; set; }

    private protected override IQueueFactory CreateQueueFactory(Action<string> reportError)
    {
        LowLatencyLog.Engine.Disruptor.ProducerType producerType = SettingReader.Name("producerType", ProducerType, AsyncAppenderSettings.DefaultProducerType, reportError);
        // A misused Single is reported through the appender's own reports, which reach the internal log.
        return new DisruptorQueueFactory(producerType, null);
    }
}
