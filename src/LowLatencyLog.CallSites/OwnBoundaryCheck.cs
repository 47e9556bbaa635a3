using System.Linq;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace LowLatencyLog.CallSites;

/// <summary>
/// Finds an <c>ILog</c> implementation of the project's own that passes log4net a boundary type other than
/// <c>LogImpl</c> (<c>Logger.Log(typeof(MyLog), …)</c>). An intercepted call on such an object reaches it through
/// <c>InterceptedLog</c>, which log4net's stack walk then finds as the caller: a wrong location no run-time code can
/// mend, since the frame is there. The build says so (<c>LLL0009</c>, a warning), at the call to <c>Log</c>.
/// </summary>
internal static class OwnBoundaryCheck
{
    public static bool IsCandidate(SyntaxNode node) =>
        node is InvocationExpressionSyntax { ArgumentList.Arguments.Count: >= 4 } invocation &&
        CallSiteParser.CalledName(invocation) == "Log";

    /// <summary>The call's diagnostic, or null when it is not such a call.</summary>
    public static Skipped? Parse(GeneratorSyntaxContext context, CancellationToken cancel)
    {
        var invocation = (InvocationExpressionSyntax)context.Node;
        SemanticModel model = context.SemanticModel;
        if (model.GetSymbolInfo(invocation, cancel).Symbol is not IMethodSymbol method ||
            method.ContainingType?.ContainingNamespace?.ToDisplayString() != "log4net.Core" ||
            method.Parameters.FirstOrDefault()?.Type.ToDisplayString() != "System.Type" ||
            model.GetEnclosingSymbol(invocation.SpanStart, cancel) is not { ContainingType: { } caller } enclosing ||
            !caller.AllInterfaces.Any(CallSiteParser.IsILog))
        {
            return null;
        }

        // A LogImpl subclass: intercepted calls take LogImpl's way for the methods it inherits, and its own methods
        // (log4net.Ext.Trace's Trace) are not ILog's; only an override of an ILog logging method is called as is.
        if (DerivesFromLogImpl(caller) &&
            !(enclosing is IMethodSymbol { IsOverride: true } overriding && CallSiteGenerator.LevelOf(overriding.Name) >= 0))
        {
            return null;
        }

        ExpressionSyntax boundary = invocation.ArgumentList.Arguments[0].Expression;
        if (boundary is TypeOfExpressionSyntax typeOf &&
            model.GetTypeInfo(typeOf.Type, cancel).Type?.ToDisplayString() == "log4net.Core.LogImpl")
        {
            return null; // LogImpl's own boundary: the walk stops above LogImpl's frames, as without interception
        }

        FileLinePositionSpan lines = invocation.GetLocation().GetLineSpan();
        return new Skipped(Reason.OwnBoundary, caller.ToDisplayString(), invocation.SyntaxTree.FilePath, invocation.Span, lines.Span);
    }

    private static bool DerivesFromLogImpl(INamedTypeSymbol type)
    {
        for (INamedTypeSymbol? t = type; t != null; t = t.BaseType)
        {
            if (t.Name == "LogImpl" && t.ContainingNamespace?.ToDisplayString() == "log4net.Core")
            {
                return true;
            }
        }

        return false;
    }
}
