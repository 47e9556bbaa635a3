using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using NUnit.Framework;

namespace LowLatencyLog.Tests;

/// <summary>
/// The library's layout, read from its source files: each file's namespace is its folder, the top-level folders
/// depend on each other without a cycle (a reference to another folder goes through a <c>using</c> line or a fully
/// qualified name), and only <c>Log4netInternals</c> reaches log4net's private members.
/// </summary>
public sealed class DependencyRuleTests
{
    private static readonly Regex UsingLine = new Regex(@"^using LowLatencyLog\.(\w+)", RegexOptions.Multiline);
    private static readonly Regex Qualified = new Regex(@"\bLowLatencyLog\.(\w+)\.");
    // The first namespace of a file, file-scoped or a block (a file may add a block of another namespace after it).
    private static readonly Regex NamespaceLine = new Regex(@"^namespace ([\w.]+)\s*(;|$)", RegexOptions.Multiline);

    [Test]
    public void EveryFilesNamespace_IsItsFolder()
    {
        foreach ((string relative, string text) in SourceFiles())
        {
            string folder = Path.GetDirectoryName(relative)!.Replace(Path.DirectorySeparatorChar, '.');
            string expected = folder.Length == 0 ? "LowLatencyLog" : "LowLatencyLog." + folder;
            Assert.That(NamespaceLine.Match(text).Groups[1].Value, Is.EqualTo(expected), relative);
        }
    }

    [Test]
    public void TheTopLevelFolders_DependOnEachOtherWithoutACycle()
    {
        Dictionary<string, HashSet<string>> edges = Edges();
        var order = new List<string>();
        var state = new Dictionary<string, int>(); // 1: on the path being walked, 2: done
        void Visit(string node, Stack<string> path)
        {
            if (state.TryGetValue(node, out int s))
            {
                Assert.That(s, Is.EqualTo(2), "a cycle: " + string.Join(" -> ", path.Reverse().Append(node)));
                return;
            }

            state[node] = 1;
            path.Push(node);
            foreach (string next in edges.TryGetValue(node, out HashSet<string>? to) ? to.OrderBy(n => n) : Enumerable.Empty<string>())
            {
                Visit(next, path);
            }

            path.Pop();
            state[node] = 2;
            order.Add(node);
        }

        foreach (string node in edges.Keys.OrderBy(n => n))
        {
            Visit(node, new Stack<string>());
        }

        TestContext.Out.WriteLine("from the bottom up: " + string.Join(", ", order));
        Assert.That(order, Does.Contain("Appender").And.Contain("Log4netInternals"));
    }

    [Test]
    public void OnlyLog4netInternals_ReachesPrivateMembers()
    {
        foreach ((string relative, string text) in SourceFiles())
        {
            if (relative.StartsWith("Log4netInternals", StringComparison.Ordinal))
            {
                continue;
            }

            Assert.That(text, Does.Not.Contain("BindingFlags.NonPublic").And.Not.Contain("UnsafeAccessor("), relative);
        }
    }

    private static Dictionary<string, HashSet<string>> Edges()
    {
        var edges = new Dictionary<string, HashSet<string>>();
        foreach ((string relative, string text) in SourceFiles())
        {
            string from = TopFolder(relative);
            if (!edges.TryGetValue(from, out HashSet<string>? to))
            {
                edges[from] = to = new HashSet<string>();
            }

            string code = string.Join("\n", text.Split('\n').Where(l => !l.TrimStart().StartsWith("//", StringComparison.Ordinal)));
            foreach (Match match in UsingLine.Matches(code).Cast<Match>().Concat(Qualified.Matches(code).Cast<Match>()))
            {
                string target = match.Groups[1].Value;
                if (target != from)
                {
                    to.Add(target);
                }
            }
        }

        return edges;
    }

    private static string TopFolder(string relative)
    {
        int slash = relative.IndexOfAny(new[] { '/', '\\' });
        return slash < 0 ? "" : relative.Substring(0, slash);
    }

    private static IEnumerable<(string Relative, string Text)> SourceFiles()
    {
        DirectoryInfo? root = new DirectoryInfo(AppContext.BaseDirectory);
        while (root != null && !File.Exists(Path.Combine(root.FullName, "LowLatencyLog.sln")))
        {
            root = root.Parent;
        }

        Assert.That(root, Is.Not.Null, "repository root above " + AppContext.BaseDirectory);
        string src = Path.Combine(root!.FullName, "src", "LowLatencyLog");
        string[] files = Directory.GetFiles(src, "*.cs", SearchOption.AllDirectories)
            .Where(f => !f.Contains(Path.DirectorySeparatorChar + "obj" + Path.DirectorySeparatorChar, StringComparison.Ordinal)
                && !f.Contains(Path.DirectorySeparatorChar + "bin" + Path.DirectorySeparatorChar, StringComparison.Ordinal))
            .ToArray();
        Assert.That(files, Has.Length.GreaterThan(40));
        return files.Select(f => (Path.GetRelativePath(src, f), File.ReadAllText(f)));
    }
}
