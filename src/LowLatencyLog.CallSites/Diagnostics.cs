using Microsoft.CodeAnalysis;

namespace LowLatencyLog.CallSites;

/// <summary>
/// The diagnostics the generator reports, one per reason a call is left alone (docs/call-sites.md has the same
/// table). Info severity: the call still logs, and its caller location walks the stack as without the generator. One
/// warning, LLL0009: an ILog of the project's own whose location interception makes wrong (<see cref="OwnBoundaryCheck"/>).
/// </summary>
internal static class Diagnostics
{
    private const string Category = "LowLatencyLog.CallSites";
    private const string HelpLink = "https://github.com/lowlatencylog/LowLatencyLog/blob/main/docs/call-sites.md";

    private static readonly DiagnosticDescriptor[] Descriptors =
    {
        Describe(Reason.CompilerNamedMethod, "The call is in a lambda, anonymous method or local function",
            "a lambda, anonymous method or local function runs as a compiler-named method"),
        Describe(Reason.Generic, "The call is in generic code",
            "a generic method or a member of a generic type"),
        Describe(Reason.StateMachine, "The call is in an async method or an iterator",
            "an async method or an iterator runs as a compiler-made MoveNext"),
        Describe(Reason.TypeName, "The calling type's runtime name is not its source name",
            "a file-local type, or a type whose metadata name the runtime writes otherwise"),
        Describe(Reason.NoSequencePointOfItsOwn, "The call is not a statement or a whole expression body",
            "the call is part of a for clause, a lambda's expression or another expression, whose line the runtime may report otherwise"),
        Describe(Reason.LineDirective, "The call is under a #line directive",
            "a #line directive maps its line"),
        Describe(Reason.UnknownOverload, "The ILog method is not one the generator knows",
            "an ILog overload other than Debug…Fatal(object), (object, Exception) and their *Format overloads"),
        Describe(Reason.NotInterceptable, "The compiler cannot intercept the call",
            "the compiler gave no interceptable location for it"),
        new DiagnosticDescriptor("LLL0009", "An ILog of the project's own passes log4net its own boundary type",
            "{0} passes log4net a boundary type other than LogImpl: calls LowLatencyLog intercepts on it print " +
            "LowLatencyLog.CallSites.InterceptedLog as the caller; build with LowLatencyLogCallSites=false to print the application's",
            Category, DiagnosticSeverity.Warning, isEnabledByDefault: true, helpLinkUri: HelpLink),
    };

    public static DiagnosticDescriptor For(Reason reason) => Descriptors[(int)reason - 1];

    private static DiagnosticDescriptor Describe(Reason reason, string title, string why) => new DiagnosticDescriptor(
        "LLL" + ((int)reason).ToString("0000", System.Globalization.CultureInfo.InvariantCulture),
        title,
        "LowLatencyLog does not intercept this {0} call: " + why + "; its caller location walks the stack",
        Category,
        DiagnosticSeverity.Info,
        isEnabledByDefault: true,
        helpLinkUri: HelpLink);
}
