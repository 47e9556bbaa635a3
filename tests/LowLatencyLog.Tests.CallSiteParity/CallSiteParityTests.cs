using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using log4net;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using log4net.Repository.Hierarchy;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.CallSiteParity;

/// <summary>
/// The one comparison that sees a wrong caller: the same source built with the call-site generator and without it.
/// log4net's own FileAppender, and each async appender into a file, write the same lines for both builds.
/// </summary>
[NonParallelizable]
public sealed class CallSiteParityTests
{
    private const string Pattern = "%class|%method|%line|%file|%message%newline";
    private readonly PrivateRepositories _repositories = new PrivateRepositories("parity-");
    private string _folder = "";

    [SetUp]
    public void CreateFolder() => _folder = Directory.CreateTempSubdirectory("lll-parity-").FullName;

    [TearDown]
    public void DeleteFolder()
    {
        _repositories.ShutDownAll();
        Directory.Delete(_folder, recursive: true);
    }

    [Test]
    public void EveryCallShape_WritesTheSameLines_WithAndWithoutInterception()
    {
        Assembly plainBuild = Assembly.Load("LowLatencyLog.CallShapes.Plain");
        Assembly interceptedBuild = Assembly.Load("LowLatencyLog.CallShapes.Intercepted");
        Assert.That(Interceptors(plainBuild), Is.Zero, "the plain build intercepts nothing");
        Assert.That(Interceptors(interceptedBuild), Is.GreaterThanOrEqualTo(55), "the intercepted build intercepts every shape");

        Dictionary<string, string[]> plain = Run(plainBuild, "plain");
        Dictionary<string, string[]> intercepted = Run(interceptedBuild, "intercepted");

        string[] expected = plain["plain log4net"];
        Assert.That(expected, Has.Length.EqualTo(75), "68 calls, 7 with an exception");
        Assert.That(expected.Where(l => !l.StartsWith("LowLatencyLog.CallShapes.", StringComparison.Ordinal) && !l.StartsWith("System.InvalidOperationException: x", StringComparison.Ordinal)), Is.Empty,
            "every caller is the application's");
        foreach (KeyValuePair<string, string[]> file in plain.Concat(intercepted))
        {
            SameLines(file.Key, file.Value, expected);
        }

        // Each async appender alone on its logger: the intercepted build's calls skip log4net's event there (SPEC 22),
        // the plain build's take log4net's path. The static constructor ran in the first run.
        string[] withoutStaticConstructor = expected.Where(l => !l.Contains("|.cctor|", StringComparison.Ordinal)).ToArray();
        Assert.That(withoutStaticConstructor, Has.Length.EqualTo(expected.Length - 1));
        foreach (KeyValuePair<string, string[]> file in RunAlone(plainBuild, "plain").Concat(RunAlone(interceptedBuild, "intercepted")))
        {
            SameLines(file.Key, file.Value, withoutStaticConstructor);
        }
    }

    private static void SameLines(string name, string[] lines, string[] expected)
    {
        string[] differing = lines.Zip(expected, (got, want) => got == want ? null : $"{got}\n    without interception: {want}").OfType<string>().ToArray();
        Assert.That(differing, Is.Empty, name + ":\n" + string.Join("\n", differing));
        Assert.That(lines, Has.Length.EqualTo(expected.Length), name);
    }

    private Dictionary<string, string[]> RunAlone(Assembly build, string name)
    {
        var files = new Dictionary<string, string[]>();
        foreach (string kind in AsyncAppenderKind.TypeNames)
        {
            var (logger, log) = _repositories.NewLogger("alone");
            string path = Path.Combine(_folder, name + "-alone-" + kind + ".log");
            var file = new BufferedFileAppender { Name = "file", File = path, AppendToFile = "false", Layout = Layout() };
            file.ActivateOptions();
            logger.AddAppender(AsyncAppenderKind.Activated(kind, kind, file));
            build.GetType("LowLatencyLog.CallShapes.Calls", throwOnError: true)!.GetMethod("Run")!.Invoke(null, new object[] { log });
            logger.Repository!.Shutdown();
            files[name + " alone " + kind] = System.IO.File.ReadAllLines(path);
        }

        return files;
    }

    private Dictionary<string, string[]> Run(Assembly build, string name)
    {
        var (logger, log) = _repositories.NewLogger("shapes");
        var files = new Dictionary<string, string>();
        string File(string appender) => files[name + " " + appender] = Path.Combine(_folder, name + "-" + appender + ".log");
        logger.AddAppender(Log4netFile(File("log4net")));
        var asyncs = new List<IFlushable>();
        foreach (string kind in AsyncAppenderKind.TypeNames)
        {
            AsyncForwardingAppender async = AsyncAppenderKind.Activated(kind, kind, Log4netFile(File(kind)));
            logger.AddAppender(async);
            asyncs.Add(async);
        }

        var buffered = new BufferedFileAppender { Name = "buffered", File = File("buffered"), AppendToFile = "false", Layout = Layout() };
        buffered.ActivateOptions();
        AsyncForwardingAppender fast = AsyncAppenderKind.Activated(nameof(DisruptorAsyncAppender), "fast", buffered);
        logger.AddAppender(fast);
        asyncs.Add(fast);

        build.GetType("LowLatencyLog.CallShapes.Calls", throwOnError: true)!.GetMethod("Run")!.Invoke(null, new object[] { log });
        foreach (IFlushable async in asyncs)
        {
            Assert.That(async.Flush(10_000), Is.True);
        }

        logger.Repository!.Shutdown();
        return files.ToDictionary(f => f.Key, f => System.IO.File.ReadAllLines(f.Value));
    }

    private static FileAppender Log4netFile(string path)
    {
        var appender = new FileAppender { Name = Path.GetFileNameWithoutExtension(path), File = path, AppendToFile = false, Layout = Layout() };
        appender.ActivateOptions();
        return appender;
    }

    private static PatternLayout Layout()
    {
        var layout = new PatternLayout(Pattern);
        layout.ActivateOptions();
        return layout;
    }

    private static int Interceptors(Assembly build) => build.GetTypes()
        .Where(t => t.Namespace == "LowLatencyLog.Generated")
        .Sum(t => t.GetMethods(BindingFlags.Public | BindingFlags.Static).Length);
}
