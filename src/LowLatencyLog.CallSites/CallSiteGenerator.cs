using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Globalization;
using System.Linq;
using System.Text;
using System.Threading;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.CSharp.Syntax;

namespace LowLatencyLog.CallSites;

/// <summary>
/// Intercepts the application's <c>log4net.ILog</c> logging calls (<c>Debug</c>, <c>Info</c>, <c>Warn</c>, <c>Error</c>,
/// <c>Fatal</c> and their <c>*Format</c> overloads) whose caller the runtime reports as written, and hands each a
/// <c>CallSite</c>: the type, method, file and line log4net's stack walk would find for it.
/// </summary>
/// <remarks>
/// Described only where the generator can write exactly what log4net writes: a call that is a statement, or the whole
/// expression body, of an ordinary method, constructor, accessor or operator of a non-generic, non-file-local type
/// (the method itself not generic, async or an iterator), outside any lambda or local function, and where no <c>#line</c>
/// directive maps the source. Every other call is left alone, and the capture walks the stack for it as before.
/// </remarks>
[Generator(LanguageNames.CSharp)]
public sealed class CallSiteGenerator : IIncrementalGenerator
{
    /// <summary>The namespace of the generated interceptors, which the package's build props add to
    /// <c>InterceptorsNamespaces</c>.</summary>
    public const string GeneratedNamespace = "LowLatencyLog.Generated";

    private static readonly string[] Levels = { "Debug", "Info", "Warn", "Error", "Fatal" };

    /// <inheritdoc />
    public void Initialize(IncrementalGeneratorInitializationContext context)
    {
        IncrementalValueProvider<bool> enabled = context.AnalyzerConfigOptionsProvider.Select(static (options, _) =>
            options.GlobalOptions.TryGetValue("build_property.LowLatencyLogCallSites", out string? value) &&
            string.Equals(value?.Trim(), "true", StringComparison.OrdinalIgnoreCase));

        IncrementalValueProvider<bool> supported = context.CompilationProvider.Select(static (compilation, _) =>
            compilation is CSharpCompilation { LanguageVersion: >= LanguageVersion.CSharp11 } &&
            compilation.GetTypeByMetadataName("LowLatencyLog.CallSites.InterceptedLog") != null &&
            compilation.GetTypeByMetadataName("log4net.ILog") != null);

        IncrementalValuesProvider<Site?> sites = context.SyntaxProvider.CreateSyntaxProvider(
            static (node, _) => IsCandidate(node),
            static (syntax, cancel) => Describe(syntax, cancel));

        IncrementalValueProvider<((ImmutableArray<Site?> Sites, bool Enabled) Left, bool Supported)> all =
            sites.Collect().Combine(enabled).Combine(supported);

        context.RegisterSourceOutput(all, static (output, input) =>
        {
            if (!input.Left.Enabled || !input.Supported)
            {
                return;
            }

            Site[] described = input.Left.Sites.Where(s => s != null).Select(s => s!).ToArray();
            if (described.Length > 0)
            {
                output.AddSource("LowLatencyLog.CallSites.g.cs", Write(described));
            }
        });
    }

    private static bool IsCandidate(SyntaxNode node)
    {
        if (node is not InvocationExpressionSyntax invocation)
        {
            return false;
        }

        string? name = invocation.Expression switch
        {
            MemberAccessExpressionSyntax access => access.Name.Identifier.ValueText,
            MemberBindingExpressionSyntax binding => binding.Name.Identifier.ValueText,
            _ => null,
        };
        if (name == null)
        {
            return false;
        }

        string level = name.EndsWith("Format", StringComparison.Ordinal) ? name.Substring(0, name.Length - "Format".Length) : name;
        return Array.IndexOf(Levels, level) >= 0;
    }

    private static Site? Describe(GeneratorSyntaxContext context, CancellationToken cancel)
    {
        var invocation = (InvocationExpressionSyntax)context.Node;
        SemanticModel model = context.SemanticModel;
        if (model.GetSymbolInfo(invocation, cancel).Symbol is not IMethodSymbol method ||
            method.IsStatic ||
            method.ContainingType is not { Name: "ILog", ContainingNamespace: { Name: "log4net", ContainingNamespace.IsGlobalNamespace: true } } ||
            method.ContainingType.ContainingAssembly?.Name != "log4net" ||
            Shape(method, model.Compilation) is not { } shape)
        {
            return null;
        }

        // The sequence point the runtime reports for the call: its statement, or the expression body it is.
        SyntaxNode? pointNode = SequencePoint(invocation);
        if (pointNode == null)
        {
            return null;
        }

        if (model.GetEnclosingSymbol(invocation.SpanStart, cancel) is not IMethodSymbol caller || Describable(caller) is not { } names)
        {
            return null;
        }

        SyntaxTree tree = invocation.SyntaxTree;
        if (tree.GetLineVisibility(pointNode.SpanStart, cancel) == LineVisibility.Hidden || HasStateMachine(invocation))
        {
            return null;
        }

        Location point = Location.Create(tree, pointNode.Span);
        FileLinePositionSpan mapped = point.GetMappedLineSpan();
        FileLinePositionSpan plain = point.GetLineSpan();
        if (mapped.HasMappedPath || mapped.StartLinePosition.Line != plain.StartLinePosition.Line)
        {
            return null; // #line: what the PDB records is the directive's, not worth matching
        }

        var interceptable = model.GetInterceptableLocation(invocation, cancel);
        if (interceptable == null)
        {
            return null;
        }

        // The document name the PDB records: the path map (deterministic builds) applied, as the compiler applies it.
        string file = model.Compilation.Options.SourceReferenceResolver?.NormalizePath(tree.FilePath, baseFilePath: null) ?? tree.FilePath;

        return new Site(
            interceptable.Version,
            interceptable.Data,
            interceptable.GetDisplayLocation(),
            Array.IndexOf(Levels, LevelOf(method.Name)),
            shape,
            Signature(method),
            names.ClassName,
            names.MethodName,
            file,
            plain.StartLinePosition.Line + 1);
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

    /// <summary>The names log4net writes for <paramref name="caller"/>'s frame, when they are the source's.</summary>
    private static (string ClassName, string MethodName)? Describable(IMethodSymbol caller)
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
                return null; // lambdas, local functions: compiler-named methods
        }

        if (caller.IsGenericMethod || caller.IsAsync || caller.IsExtern || caller.IsAbstract)
        {
            return null; // state machines (MoveNext), shared generic code
        }

        var types = new List<string>();
        for (INamedTypeSymbol? type = caller.ContainingType; type != null; type = type.ContainingType)
        {
            if (type.IsGenericType || type.IsFileLocal || type.IsAnonymousType || type.TypeKind is TypeKind.Delegate or TypeKind.Error ||
                type.MetadataName.IndexOfAny(new[] { '<', '>', '`', '+', '.', ',', '[', ']', '&', '*', '\\' }) >= 0)
            {
                return null;
            }

            types.Insert(0, type.MetadataName);
        }

        if (types.Count == 0)
        {
            return null;
        }

        var namespaces = new List<string>();
        for (INamespaceSymbol? space = caller.ContainingType!.ContainingNamespace; space is { IsGlobalNamespace: false }; space = space.ContainingNamespace)
        {
            namespaces.Insert(0, space.MetadataName);
        }

        // Type.FullName: namespace, then nested types joined by '+'.
        string className = (namespaces.Count > 0 ? string.Join(".", namespaces) + "." : "") + string.Join("+", types);
        return (className, caller.MetadataName);
    }

    private static string LevelOf(string name) =>
        name.EndsWith("Format", StringComparison.Ordinal) ? name.Substring(0, name.Length - "Format".Length) : name;

    /// <summary>Which <c>InterceptedLog</c> method does what the ILog method does.</summary>
    private static string? Shape(IMethodSymbol method, Compilation compilation)
    {
        if (!method.ReturnsVoid || Array.IndexOf(Levels, LevelOf(method.Name)) < 0)
        {
            return null;
        }

        ImmutableArray<IParameterSymbol> p = method.Parameters;
        bool format = method.Name.EndsWith("Format", StringComparison.Ordinal);
        if (!format)
        {
            return p.Length switch
            {
                1 when Is(p[0], SpecialType.System_Object) => "Message",
                2 when Is(p[0], SpecialType.System_Object) && IsType(p[1], compilation.GetTypeByMetadataName("System.Exception")) => "MessageException",
                _ => null,
            };
        }

        if (p.Length >= 2 && IsType(p[0], compilation.GetTypeByMetadataName("System.IFormatProvider")))
        {
            return p.Length == 3 && Is(p[1], SpecialType.System_String) && IsObjectArray(p[2]) ? "FormatProvider" : null;
        }

        if (p.Length < 2 || !Is(p[0], SpecialType.System_String))
        {
            return null;
        }

        if (p.Length == 2 && IsObjectArray(p[1]))
        {
            return "Format";
        }

        for (int i = 1; i < p.Length; i++)
        {
            if (!Is(p[i], SpecialType.System_Object))
            {
                return null;
            }
        }

        return p.Length switch
        {
            2 => "Format1",
            3 => "Format2",
            4 => "Format3",
            _ => null,
        };

        static bool Is(IParameterSymbol parameter, SpecialType type) => parameter.RefKind == RefKind.None && parameter.Type.SpecialType == type;

        // Symbols, not display strings: log4net 3's parameters are annotated (Exception?), which the default comparer ignores.
        static bool IsType(IParameterSymbol parameter, INamedTypeSymbol? type) =>
            parameter.RefKind == RefKind.None && type != null && SymbolEqualityComparer.Default.Equals(parameter.Type, type);

        static bool IsObjectArray(IParameterSymbol parameter) =>
            parameter.RefKind == RefKind.None && parameter.Type is IArrayTypeSymbol { Rank: 1, ElementType.SpecialType: SpecialType.System_Object };
    }

    private static readonly SymbolDisplayFormat ParameterTypeFormat = SymbolDisplayFormat.FullyQualifiedFormat
        .AddMiscellaneousOptions(SymbolDisplayMiscellaneousOptions.IncludeNullableReferenceTypeModifier);

    /// <summary>The intercepted method's parameters, as the interceptor declares them (after <c>this ILog log</c>).</summary>
    private static string Signature(IMethodSymbol method)
    {
        var text = new StringBuilder();
        for (int i = 0; i < method.Parameters.Length; i++)
        {
            IParameterSymbol parameter = method.Parameters[i];
            text.Append(", ");
            if (parameter.IsParams)
            {
                text.Append("params ");
            }

            text.Append(parameter.Type.ToDisplayString(ParameterTypeFormat)).Append(" p").Append(i.ToString(CultureInfo.InvariantCulture));
        }

        return text.ToString();
    }

    private static string Write(Site[] sites)
    {
        var text = new StringBuilder();
        text.AppendLine("// <auto-generated/>");
        text.AppendLine("// LowLatencyLog: the application's ILog calls with their call sites, so that the caller's location costs no stack walk.");
        text.AppendLine("#nullable enable");
        text.AppendLine();
        text.AppendLine("namespace System.Runtime.CompilerServices");
        text.AppendLine("{");
        text.AppendLine("    [global::System.AttributeUsage(global::System.AttributeTargets.Method, AllowMultiple = true)]");
        text.AppendLine("    file sealed class InterceptsLocationAttribute : global::System.Attribute");
        text.AppendLine("    {");
        text.AppendLine("        public InterceptsLocationAttribute(int version, string data)");
        text.AppendLine("        {");
        text.AppendLine("            _ = version;");
        text.AppendLine("            _ = data;");
        text.AppendLine("        }");
        text.AppendLine("    }");
        text.AppendLine("}");
        text.AppendLine();
        text.AppendLine("namespace System.Security");
        text.AppendLine("{");
        text.AppendLine("    // Keeps the caller's frame: the JIT neither inlines a method that calls an interceptor nor tail-calls one.");
        text.AppendLine("    [global::System.AttributeUsage(global::System.AttributeTargets.Method)]");
        text.AppendLine("    file sealed class DynamicSecurityMethodAttribute : global::System.Attribute");
        text.AppendLine("    {");
        text.AppendLine("    }");
        text.AppendLine("}");
        text.AppendLine();
        text.Append("namespace ").AppendLine(GeneratedNamespace);
        text.AppendLine("{");
        text.AppendLine("    [global::System.Diagnostics.DebuggerNonUserCode]");
        text.AppendLine("    [global::System.Runtime.CompilerServices.CompilerGenerated]");
        text.AppendLine("    file static class CallSiteInterceptors");
        text.AppendLine("    {");
        for (int i = 0; i < sites.Length; i++)
        {
            Site site = sites[i];
            string index = i.ToString(CultureInfo.InvariantCulture);
            if (i > 0)
            {
                text.AppendLine();
            }

            text.Append("        private static readonly global::LowLatencyLog.CallSites.CallSite Site").Append(index)
                .Append(" = new global::LowLatencyLog.CallSites.CallSite(typeof(CallSiteInterceptors), global::log4net.Core.Level.")
                .Append(Levels[site.Level]).Append(", ")
                .Append(Literal(site.ClassName)).Append(", ")
                .Append(Literal(site.MethodName)).Append(", ")
                .Append(Literal(site.File)).Append(", ")
                .Append(site.Line.ToString(CultureInfo.InvariantCulture)).AppendLine(");");
            text.AppendLine();
            text.Append("        // ").AppendLine(site.Display.Replace('\r', ' ').Replace('\n', ' '));
            text.Append("        [global::System.Runtime.CompilerServices.InterceptsLocation(")
                .Append(site.Version.ToString(CultureInfo.InvariantCulture)).Append(", ").Append(Literal(site.Data)).AppendLine(")]");
            text.AppendLine("        [global::System.Runtime.CompilerServices.MethodImpl(global::System.Runtime.CompilerServices.MethodImplOptions.NoInlining)]");
            text.AppendLine("        [global::System.Security.DynamicSecurityMethod]");
            text.Append("        public static void Call").Append(index).Append("(this global::log4net.ILog log").Append(site.Signature).AppendLine(")");
            text.Append("            => global::LowLatencyLog.CallSites.InterceptedLog.").Append(site.Shape).Append("(log, Site").Append(index);
            int count = site.Signature.Split(new[] { ", " }, StringSplitOptions.RemoveEmptyEntries).Length;
            for (int p = 0; p < count; p++)
            {
                text.Append(", p").Append(p.ToString(CultureInfo.InvariantCulture));
            }

            text.AppendLine(");");
        }

        text.AppendLine("    }");
        text.AppendLine("}");
        return text.ToString();
    }

    private static string Literal(string value) => SymbolDisplay.FormatLiteral(value, quote: true);

    /// <summary>One described call: equatable, so unchanged call sites cost the incremental pipeline nothing.</summary>
    private sealed record Site(
        int Version,
        string Data,
        string Display,
        int Level,
        string Shape,
        string Signature,
        string ClassName,
        string MethodName,
        string File,
        int Line);
}
