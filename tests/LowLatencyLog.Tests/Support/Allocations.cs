using System;

namespace LowLatencyLog.Tests.Support;

/// <summary>Bytes allocated on the calling thread, measured so that a one-off allocation of the runtime's own does not count.</summary>
internal static class Allocations
{
    /// <summary>
    /// Runs <paramref name="round"/> three times and returns the bytes the fewest-allocating round allocated on this
    /// thread. A per-call allocation shows in every round (each round makes thousands of calls); a one-off allocation of
    /// the runtime's (seen in full suite runs: several KB in one round, none in the next) shows in one round only.
    /// </summary>
    public static long LeastOfThreeRounds(Action round)
    {
        long least = long.MaxValue;
        for (int i = 0; i < 3; i++)
        {
            long before = GC.GetAllocatedBytesForCurrentThread();
            round();
            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        return least;
    }
}
