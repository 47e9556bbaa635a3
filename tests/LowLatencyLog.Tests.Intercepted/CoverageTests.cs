using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading.Tasks;
using log4net;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Intercepted;

/// <summary>
/// Which calls the generator describes: those marked "site" below, and none of those marked "walk" (methods the
/// runtime reports under compiler-made names or types, and clauses with sequence points of their own).
/// </summary>
public sealed class CoverageTests
{
    [Test]
    public void TheGeneratorDescribesOrdinaryMethods_AndLeavesCompilerNamedOnesToTheWalk()
    {
        string path = Path.Combine(SourceDirectory(), "CoverageTests.cs");
        string[] source = File.ReadAllLines(path);
        HashSet<int> described = GeneratedSite.All().Where(s => s.File == path).Select(s => s.Line).ToHashSet();
        int[] marked(string mark) => source.Select((text, i) => (text, line: i + 1)).Where(l => l.text.TrimEnd().EndsWith("// " + mark, StringComparison.Ordinal)).Select(l => l.line).ToArray();

        Assert.That(marked("site"), Has.Length.EqualTo(9));
        Assert.That(marked("walk"), Has.Length.EqualTo(8));
        Assert.That(marked("site"), Is.SubsetOf(described));
        Assert.That(marked("walk").Intersect(described), Is.Empty);
    }

    private static string SourceDirectory()
    {
        // The generator records this file's path; any described site of it names the folder.
        GeneratedSite site = GeneratedSite.All().First(s => s.File.EndsWith("CoverageTests.cs", StringComparison.Ordinal));
        return Path.GetDirectoryName(site.File)!;
    }
}

/// <summary>Never run: its calls exist to be compiled.</summary>
internal static class Calls
{
    public static void Ordinary(ILog log)
    {
        log.Info("ordinary"); // site
        log?.Warn("conditional"); // site
        log!.Error("with an exception", new InvalidOperationException()); // site
        log.Debug(null, null); // site
        log.FatalFormat(CultureInfo.InvariantCulture, "{0} with a provider", 1); // site
        log.WarnFormat(null, "{0} without one", 1); // site
        new Holder(log)?.Log?.Info("conditional chain"); // site
        Action lambda = () => log!.Info("lambda"); // walk
        lambda();
        Local();
        for (log!.Info("for initializer"); Once(); log.Info("for incrementor")) // walk
        {
        }

        void Local() => log!.Info("local function"); // walk
    }

    private sealed record Holder(ILog? Log);

    private static bool s_once;

    private static bool Once() => s_once = !s_once;

    public static void ExpressionBodied(ILog log) => log.Info("expression bodied"); // site

    public static void Generic<T>(ILog log) => log.Info(typeof(T)); // walk

    public static async Task Async(ILog log)
    {
        log.Info("before the await"); // walk
        await Task.Yield();
    }

    public static IEnumerable<int> Iterator(ILog log)
    {
        log.Info("iterator"); // walk
        yield return 1;
    }

    public static void Mapped(ILog log)
    {
#line 900 "elsewhere.cs"
        log.Info("under #line"); // walk
#line default
        log.Info("after #line default"); // site
    }

    private sealed class Box<T>
    {
        public static void Log(ILog log) => log.Info("generic type"); // walk
    }
}
