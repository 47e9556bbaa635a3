using Microsoft.CodeAnalysis.Text;

namespace LowLatencyLog.CallSites;

/// <summary>What the parser makes of one <c>ILog</c> logging call: a <see cref="Site"/> to intercept, or the
/// <see cref="Reason"/> it is left alone. Equatable (records of strings and numbers, no syntax or symbols), so unchanged
/// calls cost the incremental pipeline nothing.</summary>
internal sealed record Call(Site? Site, Skipped? Skipped);

/// <summary>One described call.</summary>
/// <param name="Version">The interceptable location's version, as the compiler gave it.</param>
/// <param name="Data">The interceptable location's data, as the compiler gave it.</param>
/// <param name="Display">The call's file, line and column, for the comment above its interceptor.</param>
/// <param name="Level">The index of the call's level in <see cref="CallSiteGenerator.Levels"/>.</param>
/// <param name="Shape">The <c>InterceptedLog</c> method that does what the <c>ILog</c> method does.</param>
/// <param name="Signature">The <c>ILog</c> method's parameters as the interceptor declares them (after
/// <c>this ILog log</c>), named <c>p0</c>, <c>p1</c>, ….</param>
/// <param name="ParameterCount">How many parameters <paramref name="Signature"/> declares.</param>
/// <param name="ClassName">The calling method's type, as <c>Type.FullName</c> writes it.</param>
/// <param name="MethodName">The calling method, as <c>MethodInfo.Name</c> writes it.</param>
/// <param name="File">The source file as the PDB records it.</param>
/// <param name="Line">The first line of the call's statement.</param>
internal sealed record Site(
    int Version,
    string Data,
    string Display,
    int Level,
    string Shape,
    string Signature,
    int ParameterCount,
    string ClassName,
    string MethodName,
    string File,
    int Line);

/// <summary>A call left alone, and where it is (for its diagnostic).</summary>
internal sealed record Skipped(Reason Reason, string Method, string FilePath, TextSpan Span, LinePositionSpan Lines);

/// <summary>Why a call is left alone: one diagnostic each (<see cref="Diagnostics"/>, docs/call-sites.md).</summary>
internal enum Reason
{
    CompilerNamedMethod = 1,
    Generic = 2,
    StateMachine = 3,
    TypeName = 4,
    NoSequencePointOfItsOwn = 5,
    LineDirective = 6,
    UnknownOverload = 7,
    NotInterceptable = 8,
    OwnBoundary = 9,
}
