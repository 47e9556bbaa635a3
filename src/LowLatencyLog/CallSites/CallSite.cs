using System;
using System.ComponentModel;
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Threading;
using log4net.Core;
using LowLatencyLog.Capture;

namespace LowLatencyLog.CallSites;

/// <summary>
/// One <c>ILog</c> call in an application's source, as the package's source generator describes it at compile time:
/// what log4net's stack walk would find for the call (the caller's type, method, file and line).
/// </summary>
/// <remarks>
/// <para>Generated code creates one per call site and passes it to <see cref="InterceptedLog"/>; applications do not
/// use it. The generator describes only call sites whose frame the runtime reports as written (an ordinary method of a
/// non-generic type, not a lambda, local function, async method or iterator); the others keep log4net's stack walk.
/// The first event of a call site checks the description against one walk, and keeps the file and line that walk
/// reports (what log4net writes); a call site the runtime reports otherwise keeps walking.</para>
/// </remarks>
[EditorBrowsable(EditorBrowsableState.Never)]
public sealed class CallSite
{
    // The call site of the ILog call under way on this thread, and the message object it handed log4net: an event is
    // this call's when its boundary type and message object are these (a re-entrant call made while log4net appends is
    // another event, and restores these when it returns).
    [ThreadStatic]
    private static CallSite? t_current;

    [ThreadStatic]
    private static object? t_message;

    /// <summary>Tests: when true, no call site reaches the capture, which walks the stack instead.</summary>
    internal static bool Disabled;

    private readonly string _className;
    private readonly string _methodName;
    private readonly string _fileName;
    private readonly int _line;
    // Set on first use, once the runtime's frame confirmed the description (any thread; a race builds equal objects).
    private CallerLocation? _methodOnly;
    private CallerLocation? _withFile;
    private bool _refused;

    /// <summary>Generated code: a call site.</summary>
    /// <param name="boundary">The generated type whose methods intercept the calls: log4net's stack walk starts past
    /// its frames, so it finds the application's method as it does without interception.</param>
    /// <param name="level">The <see cref="log4net.ILog"/> method's level: <see cref="log4net.Core.Level.Debug"/>,
    /// <see cref="log4net.Core.Level.Info"/>, <see cref="log4net.Core.Level.Warn"/>, <see cref="log4net.Core.Level.Error"/>
    /// or <see cref="log4net.Core.Level.Fatal"/>.</param>
    /// <param name="className">The calling method's declaring type, as <see cref="Type.FullName"/> writes it.</param>
    /// <param name="methodName">The calling method, as <see cref="MemberInfo.Name"/> writes it.</param>
    /// <param name="fileName">The source file, as the PDB records it (path map applied), as the generator reads it.</param>
    /// <param name="line">The first line of the call's statement, as the generator reads it.</param>
    public CallSite(Type boundary, Level level, string className, string methodName, string fileName, int line)
    {
        Boundary = boundary ?? throw new ArgumentNullException(nameof(boundary));
        Kind = LevelKinds.Of(level ?? throw new ArgumentNullException(nameof(level)));
        _className = className ?? throw new ArgumentNullException(nameof(className));
        _methodName = methodName ?? throw new ArgumentNullException(nameof(methodName));
        _fileName = fileName ?? throw new ArgumentNullException(nameof(fileName));
        _line = line;
    }

    /// <summary>The generated type that intercepts the call: the boundary of log4net's stack walk.</summary>
    internal Type Boundary { get; }

    /// <summary>Which of <see cref="log4net.ILog"/>'s five levels the call logs at.</summary>
    internal LevelKind Kind { get; }

    /// <summary>Tests: null before the first use, then whether the runtime's frame confirmed the description.</summary>
    internal bool? Confirmed => _refused ? false : _withFile != null ? true : null;

    /// <summary>Tests: what the runtime reported for the call site's frame once confirmed.</summary>
    internal LocationInfo? Reported => _withFile?.ToLocationInfo();

    /// <summary>The file and first line of the call's sequence point, as the generator read them from the source.</summary>
    internal (string File, int Line) Described => (_fileName, _line);

    /// <summary>
    /// Producer thread: the caller of <paramref name="source"/>, when it is the event of the intercepted call under way
    /// on this thread and the runtime reports this call site's frame as described; otherwise null (the stack is walked).
    /// </summary>
    internal static CallerLocation? Caller(LoggingEvent source, Type boundary, bool withFile)
    {
        CallSite? site = t_current;
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
    internal static Scope Enter(CallSite site, object? message)
    {
        var scope = new Scope(t_current, t_message);
        if (!Disabled)
        {
            t_current = site;
            t_message = message;
        }

        return scope;
    }

    /// <summary>What was under way on the thread before a call: restored when the call returns.</summary>
    internal readonly struct Scope
    {
        private readonly CallSite? _site;
        private readonly object? _message;

        public Scope(CallSite? site, object? message)
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
