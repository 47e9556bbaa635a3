using System;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Samples;

/// <summary>The configuration the README offers first, taken from the README as a reader copies it: it loads without an
/// internal error or warning, and its file holds every event logged.</summary>
public sealed class ReadmeConfigTests
{
    [Test]
    public void TheReadmesConfiguration_WritesEveryEventToItsFile()
    {
        DirectoryInfo? root = new DirectoryInfo(AppContext.BaseDirectory);
        while (root != null && !File.Exists(Path.Combine(root.FullName, "LowLatencyLog.sln")))
        {
            root = root.Parent;
        }

        Assert.That(root, Is.Not.Null, "repository root above " + AppContext.BaseDirectory);
        string readme = File.ReadAllText(Path.Combine(root!.FullName, "README.md"));
        int section = readme.IndexOf("## The configuration most users want", StringComparison.Ordinal);
        Assert.That(section, Is.GreaterThan(0));
        Match block = new Regex(@"```xml\n(.*?)```", RegexOptions.Singleline).Match(readme, section);
        Assert.That(block.Success, Is.True);
        string xml = block.Groups[1].Value.Replace("logs/app.log", "{dir}logs/app.log");

        using var harness = new Log4netHarness(xml);
        var log = harness.Logger("Orders");
        for (int i = 0; i < 1000; i++)
        {
            log.InfoFormat("Order {0} filled", i);
        }

        log.Debug("below the root's level");
        harness.Shutdown();

        Assert.That(harness.InternalErrors, Is.Empty);
        Assert.That(harness.InternalWarnings, Is.Empty);
        string[] lines = harness.ReadLines("logs/app.log");
        Assert.That(lines, Has.Length.EqualTo(1000));
        Assert.That(lines.Select(l => l.Substring(l.IndexOf(" - ", StringComparison.Ordinal) + 3)),
            Is.EqualTo(Enumerable.Range(0, 1000).Select(i => $"Order {i} filled")));
        Assert.That(lines[0], Does.Match(@"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[.+\] INFO  Orders - Order 0 filled$"));
    }
}
