using System;
using System.ComponentModel;
using System.Reflection;
using log4net.Core;
using LowLatencyLog.Capture;
using LowLatencyLog.Log4netInternals;

namespace LowLatencyLog.CallSites;

/// <summary>
/// One <c>ILog</c> call in an application's source, as the package's source generator describes it at compile time:
/// what log4net's stack walk would find for the call (the caller's type, method, file and line).
/// </summary>
/// <remarks>
/// <para>Generated code creates one per call site and passes it to <see cref="InterceptedLog"/>; applications do not
/// use it. The generator describes only call sites whose frame the runtime reports as written (the rules, and the
/// diagnostic reported for each call left alone, are in docs/call-sites.md); the others keep log4net's stack walk.
/// The first event of a call site checks the description against one walk, and keeps the file and line that walk
/// reports (what log4net writes); a call site the runtime reports otherwise keeps walking.</para>
/// </remarks>
[EditorBrowsable(EditorBrowsableState.Never)]
public sealed class CallSite
{
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
        Kind = LevelKinds.Of(level ?? throw new ArgumentNullException(nameof(level)));
        Known = new KnownCallSite(
            boundary ?? throw new ArgumentNullException(nameof(boundary)),
            className ?? throw new ArgumentNullException(nameof(className)),
            methodName ?? throw new ArgumentNullException(nameof(methodName)));

        // The file and line stay in the generated source: what is written is what the runtime reports for the frame
        // (what log4net writes), read at the first event.
        _ = fileName ?? throw new ArgumentNullException(nameof(fileName));
        _ = line;
    }

    /// <summary>What the capture reads.</summary>
    internal KnownCallSite Known { get; }

    /// <summary>Where this site's calls went last, and for which logger (<see cref="FastRoute"/>).</summary>
    internal FastRoute? Route;

    /// <summary>Which of <see cref="log4net.ILog"/>'s five levels the call logs at.</summary>
    internal LevelKind Kind { get; }

    /// <summary>The generated type that intercepts the call: the boundary of log4net's stack walk.</summary>
    internal Type Boundary => Known.Boundary;
}
