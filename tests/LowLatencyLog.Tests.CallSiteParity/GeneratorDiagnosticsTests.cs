using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Diagnostics.CodeAnalysis;
using System.Globalization;
using System.IO;
using System.Linq;
using log4net;
using LowLatencyLog.CallSites;
using Microsoft.CodeAnalysis;
using Microsoft.CodeAnalysis.CSharp;
using Microsoft.CodeAnalysis.Diagnostics;
using NUnit.Framework;

namespace LowLatencyLog.Tests.CallSiteParity;

/// <summary>The generator run on a small compilation: each call it leaves alone is reported once, with the id of its
/// reason (docs/call-sites.md), and each call it intercepts is not reported.</summary>
public sealed class GeneratorDiagnosticsTests
{
    private const string Source = """
        using System;
        using System.Collections.Generic;
        using System.Globalization;
        using System.Threading.Tasks;
        using log4net;

        public static class Calls
        {
            public static void Ordinary(ILog log, Holder holder)
            {
                log.Info("statement"); // site
                log.Error("exception", new InvalidOperationException()); // site
                log.WarnFormat(CultureInfo.InvariantCulture, "{0}", 1); // site
                holder?.Log?.Debug("chain"); // site
                Action lambda = () => log.Info("lambda"); // LLL0001
                Local();
                for (log.Info("for"); lambda == null;) // LLL0005
                {
                }

                void Local() => log.Info("local function"); // LLL0001
        #line 900 "elsewhere.cs"
                log.Info("under #line"); // LLL0006
        #line default
            }

            public static void Body(ILog log) => log.FatalFormat("{0} {1}", 1, 2); // site

            public static void Generic<T>(ILog log) => log.Info(typeof(T)); // LLL0002

            public static async Task Async(ILog log)
            {
                log.Info("async"); // LLL0003
                await Task.Yield();
            }

            public static IEnumerable<int> Iterator(ILog log)
            {
                log.Info("iterator"); // LLL0003
                yield return 1;
            }
        }

        public sealed record Holder(ILog? Log);

        public sealed class Box<T>
        {
            public static void Log(ILog log) => log.Info("generic type"); // LLL0002
        }

        file static class Local
        {
            public static void Log(ILog log) => log.Info("file-local"); // LLL0004
        }
        """;

    [Test]
    public void EachCallLeftAlone_IsReportedWithItsReason_AndNoInterceptedCallIs()
    {
        GeneratorDriverRunResult run = Run(Source);

        string[] lines = Source.Split('\n');
        Dictionary<int, string> expected = lines.Select((text, i) => (text: text.TrimEnd(), line: i + 1))
            .Where(l => l.text.Contains("// LLL", StringComparison.Ordinal))
            .ToDictionary(l => l.line, l => l.text.Substring(l.text.LastIndexOf("// ", StringComparison.Ordinal) + 3));
        Dictionary<int, string> reported = run.Diagnostics
            .ToDictionary(d => d.Location.GetLineSpan().StartLinePosition.Line + 1, d => d.Id);
        Assert.That(run.Diagnostics.Select(d => d.Severity), Is.All.EqualTo(DiagnosticSeverity.Info));
        Assert.That(reported, Is.EquivalentTo(expected));
        int sites = lines.Count(l => l.TrimEnd().EndsWith("// site", StringComparison.Ordinal));
        Assert.That(sites, Is.EqualTo(5));
        Assert.That(run.GeneratedTrees.Single().ToString().Split("InterceptsLocation(").Length - 1, Is.EqualTo(sites));
    }

    /// <summary>
    /// An ILog of the project's own that passes log4net its own type as the walk's boundary: an intercepted call on it
    /// prints InterceptedLog as the caller, so the build warns (LLL0009), once, at its call to Log. One that passes
    /// LogImpl's type (the walk then stops above LogImpl's frames) and a decorator that calls an inner ILog are not
    /// reported.
    /// </summary>
    [TestCase("typeof(OwnLog)", true)]
    [TestCase("GetType()", true)]
    [TestCase("typeof(log4net.Core.LogImpl)", false)]
    public void AnILogPassingItsOwnBoundary_IsWarnedAbout(string boundary, bool warned)
    {
        string source = "using System;\nusing log4net;\n" + OwnLog("OwnLog", $"Logger.Log({boundary}, level, message, exception)") +
            OwnLog("Decorator", "inner.Logger.Log(typeof(log4net.Core.LogImpl), level, message, exception)");
        GeneratorDriverRunResult run = Run(source);

        string[] found = run.Diagnostics.Select(d => $"{d.Id} {d.Severity} {d.GetMessage(CultureInfo.InvariantCulture)}").ToArray();
        Assert.That(found, warned
            ? Is.EqualTo(new[] { "LLL0009 Warning OwnLog passes log4net a boundary type other than LogImpl: calls LowLatencyLog " +
                "intercepts on it print LowLatencyLog.CallSites.InterceptedLog as the caller; build with LowLatencyLogCallSites=false " +
                "to print the application's" })
            : Is.Empty);
        if (warned)
        {
            Assert.That(run.Diagnostics[0].Location.GetLineSpan().StartLinePosition.Line + 1,
                Is.EqualTo(source.Split('\n').ToList().FindIndex(l => l.Contains("private void Write", StringComparison.Ordinal)) + 2));
        }
    }

    /// <summary>
    /// A LogImpl subclass is warned about only where it overrides an ILog logging method with its own boundary (the
    /// intercepted call then calls the override); a method of its own, as log4net.Ext.Trace's Trace, is not ILog's.
    /// </summary>
    [Test]
    public void ALogImplSubclass_IsWarnedAboutOnlyInAnOverride()
    {
        const string source = """
            using System;
            using log4net.Core;

            public sealed class TraceLog(ILogger logger) : LogImpl(logger)
            {
                public void Trace(object message) => Logger.Log(typeof(TraceLog), Level.Trace, message, null);

                public override void Info(object message) => Logger.Log(typeof(TraceLog), Level.Info, message, null); // LLL0009

                public override void Warn(object message) => Logger.Log(typeof(LogImpl), Level.Warn, message, null);
            }
            """;
        GeneratorDriverRunResult run = Run(source);

        Assert.That(run.Diagnostics.Select(d => (d.Id, d.Location.GetLineSpan().StartLinePosition.Line + 1)),
            Is.EqualTo(new[] { ("LLL0009", source.Split('\n').ToList().FindIndex(l => l.Contains("// LLL0009", StringComparison.Ordinal)) + 1) }));
    }

    /// <summary>A class implementing every ILog member, each logging member through <c>Write</c>, whose body is
    /// <paramref name="write"/>; it compiles.</summary>
    private static string OwnLog(string name, string write)
    {
        var body = new System.Text.StringBuilder();
        body.Append($"public sealed class {name}(log4net.Core.ILogger logger, ILog inner) : ILog\n{{\n");
        body.Append("    public log4net.Core.ILogger Logger => logger;\n");
        body.Append("    private void Write(log4net.Core.Level level, object? message, Exception? exception) =>\n");
        body.Append($"        {write};\n");
        foreach (System.Reflection.PropertyInfo property in typeof(ILog).GetProperties())
        {
            body.Append($"    public bool {property.Name} => true;\n");
        }

        foreach (System.Reflection.MethodInfo method in typeof(ILog).GetMethods().Where(m => !m.IsSpecialName))
        {
            System.Reflection.ParameterInfo[] parameters = method.GetParameters();
            string declared = string.Join(", ", parameters.Select(p => p.ParameterType == typeof(object[])
                ? $"params object?[]? {p.Name}" : $"{TypeName(p.ParameterType)}? {p.Name}"));
            string level = method.Name.Replace("Format", "", StringComparison.Ordinal);
            string exception = parameters.Any(p => p.ParameterType == typeof(Exception)) ? "exception" : "null";
            body.Append($"    public void {method.Name}({declared}) => Write(log4net.Core.Level.{level}, {parameters[0].Name}, {exception});\n");
        }

        return body.Append("}\n").ToString();
    }

    private static string TypeName(Type type) => type == typeof(object) ? "object" : type == typeof(string) ? "string" : type.FullName!;

    private static GeneratorDriverRunResult Run(string source)
    {
        var parse = new CSharpParseOptions(LanguageVersion.Latest);
        SyntaxTree tree = CSharpSyntaxTree.ParseText(source, parse, path: "Calls.cs");
        string[] platform = ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator);
        IEnumerable<MetadataReference> references = platform.Concat(new[] { typeof(ILog).Assembly.Location, typeof(CallSite).Assembly.Location })
            .Select(path => MetadataReference.CreateFromFile(path));
        CSharpCompilation compilation = CSharpCompilation.Create("Calls", new[] { tree }, references,
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable));
        Assert.That(compilation.GetDiagnostics().Where(d => d.Severity == DiagnosticSeverity.Error), Is.Empty, "the source compiles");

        GeneratorDriver driver = CSharpGeneratorDriver.Create(new[] { new CallSiteGenerator().AsSourceGenerator() }, parseOptions: parse,
            optionsProvider: new Options());
        return driver.RunGenerators(compilation).GetRunResult();
    }

    private sealed class Options : AnalyzerConfigOptionsProvider
    {
        public override AnalyzerConfigOptions GlobalOptions { get; } = new Values();

        public override AnalyzerConfigOptions GetOptions(SyntaxTree tree) => new Values();

        public override AnalyzerConfigOptions GetOptions(AdditionalText textFile) => new Values();

        private sealed class Values : AnalyzerConfigOptions
        {
            public override bool TryGetValue(string key, [NotNullWhen(true)] out string? value)
            {
                value = key == "build_property.LowLatencyLogCallSites" ? "true" : null;
                return value != null;
            }
        }
    }
}
