using log4net.Core;

namespace LowLatencyLog.Appender;

// AsyncForwardingAppender, continued: the settings, as text (read once at activation by Configuration/AsyncAppenderSettings).
public abstract partial class AsyncForwardingAppender
{
    /// <summary>Capacity of the buffer between the calling threads and the worker, in events (setting <c>bufferSize</c>).</summary>
    /// <remarks>Default: 8192. A whole number from 1 to 16777216. The bounded queue rounds it up to a power of two.</remarks>
    public string? BufferSize { get; set; }

    /// <summary>What a calling thread does when the buffer is full (setting <c>overflow</c>): <c>Block</c> (wait for
    /// room), <c>Discard</c> (drop events at or below <see cref="DiscardThreshold"/>, count them, and report them), or
    /// <c>Grow</c> (allocate more room; memory is then bounded only by how fast the worker drains).</summary>
    /// <remarks>Default: <c>Block</c>.</remarks>
    public string? Overflow { get; set; }

    /// <summary>With <c>overflow=Discard</c>, the most severe level that may be dropped when the buffer is full; more
    /// severe events wait for room instead (setting <c>discardThreshold</c>, one of log4net's level names).</summary>
    /// <remarks>Default: <c>INFO</c>, so warnings and errors are never dropped. Exception: an event logged by a child
    /// appender from the worker thread itself is dropped and counted when the buffer is full, whatever its level,
    /// because only the worker makes room.</remarks>
    public string? DiscardThreshold { get; set; }

    /// <summary>Which volatile fields are captured on the calling thread (setting <c>fix</c>): <c>Auto</c>, or log4net
    /// <see cref="FixFlags"/> names separated by commas, such as <c>Message, ThreadName, Exception, Properties</c>.</summary>
    /// <remarks>Default: <c>Auto</c>: the message, thread name and exception always, plus properties (<c>%property</c>,
    /// <c>%ndc</c>, <c>%mdc</c>), location (<c>%location</c>, <c>%line</c>, <c>%method</c>, <c>%file</c>,
    /// <c>%type</c>), user name or identity when a child's layout uses them, searching appenders nested under the
    /// children too; a layout of unknown type, or a child without a layout, gets <c>Partial</c>. With an explicit value,
    /// a field a child's layout uses but <c>fix</c> leaves out renders empty, and activation writes a log4net internal
    /// warning naming the child and the missing flags.</remarks>
    public string? Fix { get; set; }

    /// <summary>How long <see cref="Close"/> may take to deliver what is queued, in milliseconds (setting
    /// <c>shutdownTimeout</c>).</summary>
    /// <remarks>Default: 5000. Events still queued when it passes are counted in <see cref="UndeliveredCount"/> and
    /// reported through the <see cref="ErrorHandler"/>. On .NET Framework the process-exit hook that closes log4net
    /// has about 2 seconds in total.</remarks>
    public string? ShutdownTimeout { get; set; }

    /// <summary>How the worker waits for events when the buffer is empty (setting <c>waitStrategy</c>): <c>Adaptive</c>
    /// (polls every 4 ms and parks after a second without events: calling threads never pay a wake-up while the
    /// application keeps logging, only the first call after a second of silence does), <c>Blocking</c> (parks as soon as
    /// the buffer is empty: no CPU while idle, but the calling thread that finds it parked pays the wake-up, a system
    /// call of a few microseconds), <c>Sleeping</c> (yields, then sleeps a millisecond at a time, never parks),
    /// <c>Yielding</c> (yields in a loop: low latency, a busy core while idle) or <c>BusySpin</c> (spins: the lowest
    /// latency, a whole core always).</summary>
    /// <remarks>Default: <c>Adaptive</c>.</remarks>
    public string? WaitStrategy { get; set; }
}
