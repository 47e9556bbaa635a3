using System;
using System.Runtime.CompilerServices;
using System.Security.Principal;
using System.Text.RegularExpressions;
using System.Threading;
using log4net.Core;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>
/// The caller's location and identity in generated patterns: which converters read them, and what the oracle must
/// write when the async appender's <c>fix</c> leaves them out.
/// </summary>
/// <remarks>
/// The methods that make the <c>ILog</c> calls (<see cref="StepSpec"/>'s, the bursts', the re-entrant arguments') are
/// neither inlined nor optimised: the runtime then keeps <c>LogImpl</c>'s frame under them whatever dynamic PGO would
/// devirtualise and inline, so log4net's stack walk finds the caller (not "?") on both sides, at the same line, and the
/// frames above the caller are the same ones.
/// </remarks>
internal static class OracleLocation
{
    /// <summary>For the methods that make <c>ILog</c> calls: their frame, and <c>LogImpl</c>'s under it, stay.</summary>
    public const MethodImplOptions KeepFrames = MethodImplOptions.NoInlining | MethodImplOptions.NoOptimization;

    private const string Tail = "(\\{[0-9]+\\})?(?![a-zA-Z])";

    private static readonly Regex LocationConverter = new Regex(
        "%(location|l|class|C|type|method|M|file|F|line|L|stacktracedetail|stacktrace)" + Tail, RegexOptions.CultureInvariant);

    private static readonly Regex IdentityConverter = new Regex("%(identity|u)" + Tail, RegexOptions.CultureInvariant);

    private static readonly Regex StackConverter = new Regex("%(stacktracedetail|stacktrace)" + Tail, RegexOptions.CultureInvariant);

    /// <summary>
    /// Null when log4net's stack walk finds the caller on every call; otherwise why not. <c>LogImpl</c>'s methods end in
    /// a call to <c>ILogger.Log</c> that optimised code makes a tail call, so their frame goes once they are hot,
    /// unless the runtime makes no such calls (<c>DOTNET_TailCallOpt=0</c>, set by the project's runsettings). Calls the
    /// package intercepts keep their generated frame (the assembly that compiles this suite again).
    /// </summary>
    public static string? FramesNotKept() =>
        typeof(OracleLocation).Assembly.GetName().Name!.EndsWith(".Intercepted", StringComparison.Ordinal) || Environment.GetEnvironmentVariable("DOTNET_TailCallOpt") == "0"
            ? null
            : "the caller's location needs DOTNET_TailCallOpt=0 here (LowLatencyLog.Tests.runsettings sets it for dotnet test): without it log4net's LogImpl frames go once hot, and each side answers \"?\" from a moment load decides";

    /// <summary>Whether <paramref name="pattern"/> writes the caller's location or the thread's identity.</summary>
    public static bool Reads(string pattern) => LocationConverter.IsMatch(pattern) || IdentityConverter.IsMatch(pattern);

    /// <summary>Whether <paramref name="pattern"/> writes stack frames (log4net reports an error for each event without them).</summary>
    public static bool ReadsFrames(string pattern) => StackConverter.IsMatch(pattern);

    /// <summary>
    /// The pattern the oracle's child gets for ours with <paramref name="fix"/> on the async appender: a field the fix
    /// leaves out reaches our child empty (docs/behaviours.md, 9), so the oracle writes nothing in its place.
    /// </summary>
    public static string Expected(string pattern, string? fix)
    {
        if (fix == null || fix == "Auto")
        {
            return pattern;
        }

        FixFlags flags = Enum.Parse<FixFlags>(fix);
        pattern = (flags & FixFlags.LocationInfo) == 0 ? LocationConverter.Replace(pattern, "") : pattern;
        return (flags & FixFlags.Identity) == 0 ? IdentityConverter.Replace(pattern, "") : pattern;
    }

    /// <summary>A step's principal: a name, or null for none.</summary>
    public static void SetPrincipal(string? name) =>
        Thread.CurrentPrincipal = name == null ? null : new GenericPrincipal(new GenericIdentity(name), null);

    public static string PrincipalCSharp(string? name) =>
        "Thread.CurrentPrincipal = " + (name == null ? "null;" : $"new GenericPrincipal(new GenericIdentity({ArgSpec.Literal(name)}), null);");
}
