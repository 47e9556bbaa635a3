using System;
using System.Runtime.CompilerServices;

namespace LowLatencyLog.Forwarding;

/// <summary>
/// log4net's <c>AppenderSkeleton</c> recursive guard, kept per thread (calling threads are not serialized here): the
/// async appenders taking an event, or delivering a batch, on this thread, outermost first. One object per thread, so
/// that a take reads one thread-static field and its <c>finally</c> none.
/// </summary>
internal sealed class ReentrancyGuard
{
    [ThreadStatic]
    private static ReentrancyGuard? t_current;

    /// <summary>The appenders taking an event on this thread; entries at <see cref="Depth"/> and above are unused.</summary>
    internal object?[] Appenders = new object?[4];

    internal int Depth;

    /// <summary>This thread's guard.</summary>
    public static ReentrancyGuard Current
    {
        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        get => t_current ?? Create();
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static ReentrancyGuard Create() => t_current = new ReentrancyGuard();

    /// <summary>Whether <paramref name="owner"/> is among the first <paramref name="depth"/> entries.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static bool Contains(object?[] taking, int depth, object owner)
    {
        for (int i = 0; i < depth; i++)
        {
            if (ReferenceEquals(taking[i], owner))
            {
                return true;
            }
        }

        return false;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    public object?[] Grow()
    {
        var larger = new object?[2 * (Depth + 1)];
        Appenders.CopyTo(larger, 0);
        return Appenders = larger;
    }

    /// <summary>Marks <paramref name="owner"/> as taking on this thread, whether or not it is already; the depth to
    /// give <see cref="Exit"/> in a <c>finally</c>.</summary>
    public int Enter(object owner)
    {
        int depth = Depth;
        (depth < Appenders.Length ? Appenders : Grow())[depth] = owner;
        Depth = depth + 1;
        return depth;
    }

    public void Exit(int depth)
    {
        Appenders[depth] = null;
        Depth = depth;
    }
}
