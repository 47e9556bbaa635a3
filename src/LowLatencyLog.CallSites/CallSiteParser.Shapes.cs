using System.Collections.Immutable;
using System.Globalization;
using System.Text;
using Microsoft.CodeAnalysis;

namespace LowLatencyLog.CallSites;

internal static partial class CallSiteParser
{
    private static readonly SymbolDisplayFormat ParameterTypeFormat = SymbolDisplayFormat.FullyQualifiedFormat
        .AddMiscellaneousOptions(SymbolDisplayMiscellaneousOptions.IncludeNullableReferenceTypeModifier);

    /// <summary>Which <c>InterceptedLog</c> method does what the ILog method does, or null for an overload it has none for.</summary>
    private static string? Shape(IMethodSymbol method, Compilation compilation)
    {
        if (!method.ReturnsVoid || CallSiteGenerator.LevelOf(method.Name) < 0)
        {
            return null;
        }

        ImmutableArray<IParameterSymbol> p = method.Parameters;
        if (!CallSiteGenerator.IsFormat(method.Name))
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
}
