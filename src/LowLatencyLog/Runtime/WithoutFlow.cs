using System;
using System.Threading;

namespace LowLatencyLog.Runtime;

/// <summary>Runs code that starts a thread or a timer without flowing the caller's execution context into it (no
/// AsyncLocal, Activity or logical thread context kept alive and visible to the library's threads).</summary>
internal static class WithoutFlow
{
    /// <summary>Runs <paramref name="start"/> with the flow suppressed; as it is when the caller suppressed it already
    /// (<c>ExecutionContext.SuppressFlow</c> throws then).</summary>
    public static void Run(Action start)
    {
        if (ExecutionContext.IsFlowSuppressed())
        {
            start();
            return;
        }

        using (ExecutionContext.SuppressFlow())
        {
            start();
        }
    }
}
