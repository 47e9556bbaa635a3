using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Threading;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Appender;

/// <summary>
/// Shared set-up for the appender contract suites: builds a <c>log4net.config</c> around the async appender under
/// test (named <c>async</c>, attached to the root), configures a private repository from it, and disposes it.
/// </summary>
public abstract class AsyncAppenderFixture
{
    /// <summary>The assembly these tests are compiled into: LowLatencyLog.Tests, or LowLatencyLog.Tests.Intercepted, which
    /// compiles the contract suite again with its calls intercepted (the fast path, SPEC 22).</summary>
    protected static readonly string TestAssembly = typeof(AsyncAppenderFixture).Assembly.GetName().Name!;

    protected static readonly string RecordingType = "LowLatencyLog.Tests.Support.RecordingAppender, " + TestAssembly;
    protected static readonly TimeSpan Wait = RecordingAppender.DefaultWait;

    private readonly List<Log4netHarness> _harnesses = new List<Log4netHarness>();

    protected AsyncAppenderFixture(AsyncAppenderKind kind) => Kind = kind;

    protected AsyncAppenderKind Kind { get; }

    [TearDown]
    public void DisposeHarnesses()
    {
        foreach (Log4netHarness harness in _harnesses)
        {
            harness.Dispose();
        }

        _harnesses.Clear();
    }

    /// <summary>A recording child named <paramref name="name"/> with a pattern layout.</summary>
    protected static string RecordingChild(string name = "child", string pattern = "%message") =>
        $@"<appender name=""{name}"" type=""{RecordingType}"">
             <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{pattern}"" /></layout>
           </appender>";

    /// <summary>
    /// Configures a repository: the async appender with <paramref name="settings"/> and <paramref name="refs"/>, the
    /// <paramref name="appenders"/> it refers to, and a root that logs everything to it (plus <paramref name="rootRefs"/>).
    /// </summary>
    protected Log4netHarness Configure(
        string settings = "", string? appenders = null, string refs = @"<appender-ref ref=""child"" />", string rootRefs = "")
    {
        var harness = new Log4netHarness(Xml(settings, appenders, refs, rootRefs));
        _harnesses.Add(harness);
        return harness;
    }

    protected string Xml(string settings = "", string? appenders = null, string refs = @"<appender-ref ref=""child"" />", string rootRefs = "") =>
        $@"<log4net>
             <appender name=""async"" type=""{Kind.TypeAttribute}"">{DefaultSettings}{settings}{refs}</appender>
             {appenders ?? RecordingChild()}
             <root><level value=""ALL"" /><appender-ref ref=""async"" />{rootRefs}</root>
           </log4net>";

#if INTERCEPTED
    // The fields the recording children read, named: fix=Auto would add the properties for a child type it does not
    // know, and an appender that captures them takes log4net's path. A test's own fix comes later and wins.
    private const string DefaultSettings = @"<fix value=""Message, ThreadName, Exception"" />";
#else
    private const string DefaultSettings = "";
#endif

    protected Log4netHarness Track(Log4netHarness harness)
    {
        _harnesses.Add(harness);
        return harness;
    }

    protected static AsyncForwardingAppender Async(Log4netHarness harness) => harness.Appender<AsyncForwardingAppender>("async");

    protected static RecordingAppender Child(Log4netHarness harness, string name = "child") => harness.Appender<RecordingAppender>(name);

    /// <summary>Runs producers on named threads; failures on them are collected and rethrown on the test thread.</summary>
    protected static void RunProducers(int producers, Action<int> body, string namePrefix = "producer-")
    {
        var errors = new List<Exception>();
        Thread[] threads = Enumerable.Range(0, producers).Select(p => new Thread(() =>
        {
            try
            {
                body(p);
            }
            catch (Exception e)
            {
                lock (errors)
                {
                    errors.Add(e);
                }
            }
        }) { Name = namePrefix + p, IsBackground = true }).ToArray();
        foreach (Thread thread in threads)
        {
            thread.Start();
        }

        foreach (Thread thread in threads)
        {
            Assert.That(thread.Join(TimeSpan.FromSeconds(60)), Is.True, $"{thread.Name} did not finish");
        }

        Assert.That(errors, Is.Empty);
    }

    /// <summary>Bounded wait for a condition that another thread makes true (no sleeping as synchronization).</summary>
    protected static bool Eventually(Func<bool> condition) => SpinWait.SpinUntil(condition, Wait);

    /// <summary>Reads a file the appender may still hold open.</summary>
    protected static string[] ReadShared(string path)
    {
        using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
        using var reader = new StreamReader(stream);
        return reader.ReadToEnd().Split(new[] { '\n' }, StringSplitOptions.RemoveEmptyEntries);
    }
}
