using System.Threading;
using log4net.Appender;
using log4net.Core;
using LowLatencyLog.Capture;

namespace LowLatencyLog.Benchmarks.Baselines;

/// <summary>
/// Benchmark only: captures an intercepted call as the async appenders do (SPEC 22's fast path: the same capture of the
/// message, thread name and exception) and then drops the captured event instead of handing it to a queue, counting it
/// as our <c>NullAppender</c> counts. Beside <c>BoundedQueue+Null+Intercepted</c> it splits the calling thread's cost
/// into the capture and the rest: the async appender's re-entrancy guard and threshold check, the copy into the slot
/// and the queue, which this appender leaves out.
/// </summary>
public sealed class CaptureOnlyAppender : IAppender, IFastTarget
{
    private long _count;

    public string Name { get; set; } = "";

    /// <summary>Events taken, on either path.</summary>
    public long Count => Interlocked.Read(ref _count);

    public void Close()
    {
    }

    /// <summary>log4net's path (a call not intercepted): counted only.</summary>
    public void DoAppend(LoggingEvent loggingEvent) => Interlocked.Increment(ref _count);

    bool IFastTarget.TakesFastCalls(out FixFlags capture, out bool objects)
    {
        capture = CapturedEvent.SlotFlags;
        objects = false;
        return true;
    }

    void IFastTarget.AppendFast(in FastCall call, CallerLocation? caller)
    {
        CapturedEvent captured = CapturedEvent.CaptureFast(in call, CapturedEvent.SlotFlags, null, objects: false);
        CapturedEvent.Release(in captured);
        Interlocked.Increment(ref _count);
    }
}
