using System;
using System.Collections.Immutable;
using System.Linq;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;

namespace LowLatencyLog.CallSites;

/// <summary>
/// Intercepts the application's <c>log4net.ILog</c> logging calls (<c>Debug</c>, <c>Info</c>, <c>Warn</c>, <c>Error</c>,
/// <c>Fatal</c> and their <c>*Format</c> overloads) whose caller the runtime reports as written, and hands each a
/// <c>CallSite</c>: the type, method, file and line log4net's stack walk would find for it.
/// </summary>
/// <remarks>
/// Which calls, and why the others are left alone: <see cref="CallSiteParser"/>, which reports each call it leaves
/// alone as an Info diagnostic (<see cref="Diagnostics"/>; the table is docs/call-sites.md).
/// </remarks>
[Generator(LanguageNames.CSharp)]
public sealed class CallSiteGenerator : IIncrementalGenerator
{
    /// <summary>The namespace of the generated interceptors, which the package's build props add to
    /// <c>InterceptorsNamespaces</c>.</summary>
    public const string GeneratedNamespace = "LowLatencyLog.Generated";

    /// <summary>The levels of <c>ILog</c>'s logging methods, in <c>LevelKind</c>'s order.</summary>
    internal static readonly string[] Levels = { "Debug", "Info", "Warn", "Error", "Fatal" };

    /// <summary>The index in <see cref="Levels"/> of an <c>ILog</c> logging method's level (<c>Info</c> and
    /// <c>InfoFormat</c> log at <c>Info</c>), or -1 for another name.</summary>
    internal static int LevelOf(string methodName)
    {
        string level = IsFormat(methodName) ? methodName.Substring(0, methodName.Length - "Format".Length) : methodName;
        return Array.IndexOf(Levels, level);
    }

    /// <summary>Whether an <c>ILog</c> logging method is one of the <c>*Format</c> overloads.</summary>
    internal static bool IsFormat(string methodName) => methodName.EndsWith("Format", StringComparison.Ordinal);

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

        IncrementalValuesProvider<Call?> calls = context.SyntaxProvider.CreateSyntaxProvider(
            static (node, _) => CallSiteParser.IsCandidate(node),
            static (syntax, cancel) => CallSiteParser.Parse(syntax, cancel));

        IncrementalValuesProvider<Skipped?> ownBoundaries = context.SyntaxProvider.CreateSyntaxProvider(
            static (node, _) => OwnBoundaryCheck.IsCandidate(node),
            static (syntax, cancel) => OwnBoundaryCheck.Parse(syntax, cancel));

        IncrementalValueProvider<((ImmutableArray<Call?> Calls, bool Enabled) Left, bool Supported)> all =
            calls.Collect().Combine(enabled).Combine(supported);
        context.RegisterSourceOutput(ownBoundaries.Collect().Combine(enabled).Combine(supported), static (output, input) =>
        {
            if (input.Left.Left.Length == 0 || !input.Left.Right || !input.Right)
            {
                return;
            }

            foreach (Skipped found in input.Left.Left.OfType<Skipped>())
            {
                Location location = Location.Create(found.FilePath, found.Span, found.Lines);
                output.ReportDiagnostic(Diagnostic.Create(Diagnostics.For(found.Reason), location, found.Method));
            }
        });

        context.RegisterSourceOutput(all, static (output, input) =>
        {
            if (!input.Left.Enabled || !input.Supported)
            {
                return; // turned off, or C# below 11: the build's message says so once, no call is reported
            }

            foreach (Skipped skipped in input.Left.Calls.Select(c => c?.Skipped).OfType<Skipped>())
            {
                Location location = Location.Create(skipped.FilePath, skipped.Span, skipped.Lines);
                output.ReportDiagnostic(Diagnostic.Create(Diagnostics.For(skipped.Reason), location, skipped.Method));
            }

            Site[] sites = input.Left.Calls.Select(c => c?.Site).OfType<Site>().ToArray();
            if (sites.Length > 0)
            {
                output.AddSource("LowLatencyLog.CallSites.g.cs", CallSiteEmitter.Write(sites));
            }
        });
    }
}
