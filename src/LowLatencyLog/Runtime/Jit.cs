using System.Runtime.CompilerServices;

namespace LowLatencyLog.Runtime;

/// <summary>JIT hints shared by the hot paths.</summary>
internal static class Jit
{
    /// <summary>
    /// <c>MethodImplOptions.AggressiveOptimization</c> (512), which netstandard2.0 does not name: the method is compiled
    /// fully optimized at its first call instead of starting as tier-0 code, which on a busy process start stays in
    /// use for a second or more. Runtimes that do not know the flag ignore it.
    /// </summary>
    public const MethodImplOptions Optimized = (MethodImplOptions)512;
}
