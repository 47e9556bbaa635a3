using System;
using System.Runtime.CompilerServices;
using System.Threading;
using log4net.Core;

namespace LowLatencyLog.Capture;

/// <summary>
/// A call site the package's source generator described (<c>CallSites.CallSite</c>), and the one under way on each
/// thread: the capture takes the caller from it instead of walking the stack.
/// </summary>
/// <remarks>
/// The first event of a call site checks the description against one walk, and keeps the file and line that walk
/// reports (what log4net writes); a call site the runtime reports otherwise keeps walking.
/// </remarks>
internal sealed class KnownCallSite
{
    // The call site of the ILog call under way on this thread, and the message object it handed log4net: an event is
    // this call's when its boundary type and message object are these (a re-entrant call made while log4net appends is
    // another event, and restores these when it returns).
    [ThreadStatic]
    private static KnownCallSite? t_current;

    [ThreadStatic]
    private static object? t_message;

    // False when the application set the runtime switch LowLatencyLog.CallSiteLocations to false: the descriptions are
    // ignored and the capture walks the stack as log4net does (docs/call-sites.md). Read once: a constant to the JIT.
    private static readonly bool s_used = !AppContext.TryGetSwitch("LowLatencyLog.CallSiteLocations", out bool on) || on;

    private readonly string _className;
    private readonly string _methodName;

    // Set on first use, once the runtime's frame confirmed the description (any thread; a race builds equal objects).
    private CallerLocation? _methodOnly;
    private CallerLocation? _withFile;
    private bool _refused;

    public KnownCallSite(Type boundary, string className, string methodName)
    {
        Boundary = boundary;
        _className = className;
        _methodName = methodName;
    }

    /// <summary>The generated type that intercepts the call: the boundary of log4net's stack walk.</summary>
    public Type Boundary { get; }

    /// <summary>
    /// Producer thread: the caller of <paramref name="source"/>, when it is the event of the intercepted call under way
    /// on this thread and the runtime reports this call site's frame as described; otherwise null (the stack is walked).
    /// </summary>
    public static CallerLocation? Caller(LoggingEvent source, Type boundary, bool withFile)
    {
        KnownCallSite? site = t_current;
        if (site == null || site.Boundary != boundary || !ReferenceEquals(source.MessageObject, t_message))
        {
            return null;
        }

        CallerLocation? confirmed = Volatile.Read(ref site._withFile) ?? site.Confirm();
        if (confirmed == null)
        {
            return null;
        }

        return withFile ? confirmed : site._methodOnly;
    }

    /// <summary>
    /// Producer thread, on the fast path (no event): the caller as described and confirmed, with or without its file
    /// and line; null when the runtime reports the frame otherwise (the call then takes log4net's path, which walks).
    /// The first call confirms it, from inside the intercepted call as <see cref="Caller"/> does.
    /// </summary>
    public CallerLocation? ConfirmedCaller(bool withFile)
    {
        if (!s_used)
        {
            return null;
        }

        CallerLocation? confirmed = Volatile.Read(ref _withFile) ?? Confirm();
        return confirmed == null ? null : withFile ? confirmed : _methodOnly;
    }

    /// <summary>
    /// First use: one stack walk, as log4net's, confirms that the runtime reports the frame the generator described (its
    /// type and method: not inlined, not renamed by the compiler) and reads the file and line the runtime reports for it,
    /// which log4net writes (the JIT's map from code to IL offsets sometimes lands the call on a hidden sequence point,
    /// line 0, and without the PDB there is no file or line). Later events from the call site reuse the answer.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private CallerLocation? Confirm()
    {
        if (_refused)
        {
            return null;
        }

        if (CallerLocation.CallerFrame(Boundary, withFile: true) is { } frame &&
            frame.GetMethod() is { } method && method.Name == _methodName && method.DeclaringType?.FullName == _className)
        {
            _methodOnly = CallerLocation.FromSite(_className, _methodName);
            CallerLocation withFile = CallerLocation.FromSite(_className, _methodName, frame.GetFileName(), frame.GetFileLineNumber());
            Volatile.Write(ref _withFile, withFile); // after _methodOnly: a thread that sees it sees both
            return withFile;
        }

        _refused = true;
        return null;
    }

    /// <summary>Marks <paramref name="site"/> as the call under way, with the message object log4net gets.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static Scope Enter(KnownCallSite site, object? message)
    {
        var scope = new Scope(t_current, t_message);
        if (s_used)
        {
            t_current = site;
            t_message = message;
        }

        return scope;
    }

    /// <summary>What was under way on the thread before a call: restored when the call returns.</summary>
    public readonly struct Scope
    {
        private readonly KnownCallSite? _site;
        private readonly object? _message;

        public Scope(KnownCallSite? site, object? message)
        {
            _site = site;
            _message = message;
        }

        [MethodImpl(MethodImplOptions.AggressiveInlining)]
        public void Exit()
        {
            t_current = _site;
            t_message = _message;
        }
    }
}
