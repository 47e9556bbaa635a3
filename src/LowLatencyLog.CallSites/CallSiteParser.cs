using System;
using System.Collections.Generic;
using System.Linq;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace LowLatencyLog.CallSites;

/// <summary>
/// Reads one <c>ILog</c> logging call: a <see cref="Site"/> where the generator can write exactly what log4net's stack
/// walk finds for it, otherwise the <see cref="Reason"/> it is left alone (the rules, in the order checked, are the
/// table of docs/call-sites.md).
/// </summary>
internal static partial class CallSiteParser
{
    public static bool IsCandidate(SyntaxNode node) =>
        node is InvocationExpressionSyntax invocation &&
        invocation.Expression is MemberAccessExpressionSyntax or MemberBindingExpressionSyntax &&
        CalledName(invocation) is { } name &&
        CallSiteGenerator.LevelOf(name) >= 0;

    /// <summary>The name of the method an invocation calls (<c>a.Name(…)</c>, <c>a?.Name(…)</c>, <c>Name(…)</c>), or null.</summary>
    internal static string? CalledName(InvocationExpressionSyntax invocation) => invocation.Expression switch
    {
        MemberAccessExpressionSyntax access => access.Name.Identifier.ValueText,
        MemberBindingExpressionSyntax binding => binding.Name.Identifier.ValueText,
        IdentifierNameSyntax identifier => identifier.Identifier.ValueText,
        _ => null,
    };

    /// <summary>Whether <paramref name="type"/> is log4net's <c>ILog</c>.</summary>
    internal static bool IsILog(INamedTypeSymbol? type) =>
        type is { Name: "ILog", ContainingNamespace: { Name: "log4net", ContainingNamespace.IsGlobalNamespace: true } };

    /// <summary>Null for a call that is not one of <c>ILog</c>'s logging methods (nothing to report).</summary>
    public static Call? Parse(GeneratorSyntaxContext context, CancellationToken cancel)
    {
        var invocation = (InvocationExpressionSyntax)context.Node;
        SemanticModel model = context.SemanticModel;
        if (model.GetSymbolInfo(invocation, cancel).Symbol is not IMethodSymbol method ||
            method.IsStatic ||
            !IsILog(method.ContainingType) ||
            method.ContainingType.ContainingAssembly?.Name != "log4net")
        {
            return null;
        }

        Call Skip(Reason reason)
        {
            FileLinePositionSpan lines = invocation.GetLocation().GetLineSpan();
            return new Call(null, new Skipped(reason, "ILog." + method.Name, invocation.SyntaxTree.FilePath, invocation.Span, lines.Span));
        }

        if (Shape(method, model.Compilation) is not { } shape)
        {
            return Skip(Reason.UnknownOverload);
        }

        if (model.GetEnclosingSymbol(invocation.SpanStart, cancel) is not IMethodSymbol caller)
        {
            return Skip(Reason.CompilerNamedMethod);
        }

        if (Caller(caller) is { } callerReason)
        {
            return Skip(callerReason);
        }

        if (HasStateMachine(invocation))
        {
            return Skip(Reason.StateMachine);
        }

        if (TypeNames(caller.ContainingType) is not { } className)
        {
            return Skip(Reason.TypeName);
        }

        // The sequence point the runtime reports for the call: its statement, or the expression body it is.
        if (SequencePoint(invocation) is not { } pointNode)
        {
            return Skip(Reason.NoSequencePointOfItsOwn);
        }

        SyntaxTree tree = invocation.SyntaxTree;
        Location point = Location.Create(tree, pointNode.Span);
        FileLinePositionSpan mapped = point.GetMappedLineSpan();
        FileLinePositionSpan plain = point.GetLineSpan();
        if (tree.GetLineVisibility(pointNode.SpanStart, cancel) == LineVisibility.Hidden ||
            mapped.HasMappedPath || mapped.StartLinePosition.Line != plain.StartLinePosition.Line)
        {
            return Skip(Reason.LineDirective); // what the PDB records is the directive's, not worth matching
        }

        if (model.GetInterceptableLocation(invocation, cancel) is not { } interceptable)
        {
            return Skip(Reason.NotInterceptable);
        }

        // The document name the PDB records: the path map (deterministic builds) applied, as the compiler applies it.
        string file = model.Compilation.Options.SourceReferenceResolver?.NormalizePath(tree.FilePath, baseFilePath: null) ?? tree.FilePath;

        return new Call(
            new Site(
                interceptable.Version,
                interceptable.Data,
                interceptable.GetDisplayLocation(),
                CallSiteGenerator.LevelOf(method.Name),
                shape,
                Signature(method),
                method.Parameters.Length,
                className,
                caller.MetadataName,
                file,
                plain.StartLinePosition.Line + 1),
            null);
    }

    /// <summary>The node whose span is the sequence point of the call: a statement that is the call, or an expression
    /// body that is the call. Null for anything else (a <c>for</c> clause).</summary>
    private static SyntaxNode? SequencePoint(InvocationExpressionSyntax invocation)
    {
        SyntaxNode expression = invocation;
        while (expression.Parent is ConditionalAccessExpressionSyntax conditional && conditional.WhenNotNull == expression)
        {
            expression = conditional; // log?.Info(...), a?.b?.Info(...)
        }

        while (expression.Parent is ParenthesizedExpressionSyntax)
        {
            expression = expression.Parent;
        }

        return expression.Parent switch
        {
            ExpressionStatementSyntax statement => statement,
            ArrowExpressionClauseSyntax arrow when arrow.Parent is BaseMethodDeclarationSyntax or AccessorDeclarationSyntax => arrow.Expression,
            _ => null,
        };
    }

    /// <summary>Whether the member holding the call is an iterator or async (its body runs in a compiler-named
    /// <c>MoveNext</c>): a <c>yield</c> or <c>await</c> outside nested lambdas and local functions.</summary>
    private static bool HasStateMachine(SyntaxNode call)
    {
        SyntaxNode? member = call.Ancestors().FirstOrDefault(n => n is MemberDeclarationSyntax or CompilationUnitSyntax);
        if (member == null)
        {
            return true;
        }

        // Top-level statements: all of them make one method.
        IEnumerable<SyntaxNode> bodies = member is GlobalStatementSyntax { Parent: CompilationUnitSyntax unit }
            ? unit.Members.OfType<GlobalStatementSyntax>()
            : new[] { member };
        return bodies.SelectMany(b => b.DescendantNodesAndSelf(n => n is not (AnonymousFunctionExpressionSyntax or LocalFunctionStatementSyntax)))
            .Any(n => n is YieldStatementSyntax or AwaitExpressionSyntax ||
                n is ForEachStatementSyntax { AwaitKeyword.RawKind: not 0 } ||
                n is UsingStatementSyntax { AwaitKeyword.RawKind: not 0 } ||
                n is LocalDeclarationStatementSyntax { AwaitKeyword.RawKind: not 0 });
    }

    /// <summary>Why log4net would not find <paramref name="caller"/>'s frame under its source name, or null.</summary>
    private static Reason? Caller(IMethodSymbol caller)
    {
        switch (caller.MethodKind)
        {
            case MethodKind.Ordinary:
            case MethodKind.Constructor:
            case MethodKind.StaticConstructor:
            case MethodKind.PropertyGet:
            case MethodKind.PropertySet:
            case MethodKind.EventAdd:
            case MethodKind.EventRemove:
            case MethodKind.UserDefinedOperator:
            case MethodKind.Conversion:
            case MethodKind.Destructor:
            case MethodKind.ExplicitInterfaceImplementation:
                break;
            default:
                return Reason.CompilerNamedMethod; // lambdas, local functions
        }

        bool generic = caller.IsGenericMethod;
        for (INamedTypeSymbol? type = caller.ContainingType; type != null; type = type.ContainingType)
        {
            generic |= type.IsGenericType;
        }

        if (generic)
        {
            return Reason.Generic; // shared generic code
        }

        return caller.IsAsync ? Reason.StateMachine : null;
    }

    /// <summary><see cref="Type.FullName"/> of <paramref name="type"/> when it is its source name (namespace, then
    /// nested types joined by '+'), or null.</summary>
    private static string? TypeNames(INamedTypeSymbol? type)
    {
        if (type == null)
        {
            return null;
        }

        var types = new List<string>();
        for (INamedTypeSymbol? t = type; t != null; t = t.ContainingType)
        {
            if (t.IsFileLocal || t.IsAnonymousType || t.TypeKind is TypeKind.Delegate or TypeKind.Error ||
                t.MetadataName.IndexOfAny(new[] { '<', '>', '`', '+', '.', ',', '[', ']', '&', '*', '\\' }) >= 0)
            {
                return null;
            }

            types.Insert(0, t.MetadataName);
        }

        var namespaces = new List<string>();
        for (INamespaceSymbol? space = type.ContainingNamespace; space is { IsGlobalNamespace: false }; space = space.ContainingNamespace)
        {
            namespaces.Insert(0, space.MetadataName);
        }

        return (namespaces.Count > 0 ? string.Join(".", namespaces) + "." : "") + string.Join("+", types);
    }
}
