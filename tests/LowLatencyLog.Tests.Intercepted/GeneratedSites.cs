using System;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text.RegularExpressions;

namespace LowLatencyLog.Tests.Intercepted;

/// <summary>One call site as the generator described it in the source it emitted for this assembly.</summary>
internal sealed record GeneratedSite(string ClassName, string MethodName, string File, int Line)
{
    private static readonly Regex Site = new Regex(
        @"new global::LowLatencyLog\.CallSites\.CallSite\(typeof\(\w+\), global::log4net\.Core\.Level\.\w+, (""(?:[^""\\]|\\.)*""), (""(?:[^""\\]|\\.)*""), (""(?:[^""\\]|\\.)*""), (\d+)\)",
        RegexOptions.CultureInvariant);

    /// <summary>Every call site of the generated file (EmitCompilerGeneratedFiles keeps it under obj/; the project
    /// records where in the assembly's metadata).</summary>
    public static GeneratedSite[] All()
    {
        string folder = typeof(GeneratedSite).Assembly.GetCustomAttributes<AssemblyMetadataAttribute>().Single(a => a.Key == "GeneratedFiles").Value!;
        string file = Directory.GetFiles(Path.Combine(folder, "LowLatencyLog.CallSites"), "*.g.cs", SearchOption.AllDirectories).Single();
        return Site.Matches(System.IO.File.ReadAllText(file))
            .Select(m => new GeneratedSite(Text(m.Groups[1].Value), Text(m.Groups[2].Value), Text(m.Groups[3].Value), int.Parse(m.Groups[4].Value, CultureInfo.InvariantCulture)))
            .ToArray();
    }

    // A C# string literal as SymbolDisplay.FormatLiteral writes it.
    private static string Text(string literal) => Regex.Unescape(literal.Substring(1, literal.Length - 2));
}
