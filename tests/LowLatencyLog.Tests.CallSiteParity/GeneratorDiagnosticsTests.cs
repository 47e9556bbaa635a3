using System;
using System.Collections.Generic;
using System.Collections.Immutable;
using System.Diagnostics.CodeAnalysis;
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
        var parse = new CSharpParseOptions(LanguageVersion.Latest);
        SyntaxTree tree = CSharpSyntaxTree.ParseText(Source, parse, path: "Calls.cs");
        string[] platform = ((string)AppContext.GetData("TRUSTED_PLATFORM_ASSEMBLIES")!).Split(Path.PathSeparator);
        IEnumerable<MetadataReference> references = platform.Concat(new[] { typeof(ILog).Assembly.Location, typeof(CallSite).Assembly.Location })
            .Select(path => MetadataReference.CreateFromFile(path));
        CSharpCompilation compilation = CSharpCompilation.Create("Calls", new[] { tree }, references,
            new CSharpCompilationOptions(OutputKind.DynamicallyLinkedLibrary, nullableContextOptions: NullableContextOptions.Enable));

        GeneratorDriver driver = CSharpGeneratorDriver.Create(new[] { new CallSiteGenerator().AsSourceGenerator() }, parseOptions: parse,
            optionsProvider: new Options());
        GeneratorDriverRunResult run = driver.RunGenerators(compilation).GetRunResult();

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
