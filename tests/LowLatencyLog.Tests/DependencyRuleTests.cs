using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using System.Text.RegularExpressions;
using NUnit.Framework;

namespace LowLatencyLog.Tests;

/// <summary>
/// The library's layering, read from its source files: each file's namespace is its folder, each top-level folder uses
/// only the folders <see cref="MayUse"/> lists for it (so the folders form no cycle), and only <c>Log4netInternals</c>
/// reaches log4net's private members or looks a log4net type up by name.
/// </summary>
/// <remarks>
/// A folder uses another when its code names a type declared there: through a <c>using</c> of that folder's namespace,
/// a qualified name, or a name qualified by the folder alone (<c>Runtime.CacheLine</c>). Comments and strings do not
/// count. Every <c>using</c> of a library folder must be explained by such a type, so no dependency hides in a line the
/// test does not read (the library's build also fails on an unused <c>using</c>, IDE0005).
/// </remarks>
public sealed class DependencyRuleTests
{
    /// <summary>
    /// What each folder is for, and the folders its code may use, from the top down. An event's path on the calling
    /// thread is Appender → Forwarding → Capture → Engine (the queue); the worker's is Engine → the sink interface
    /// Forwarding implements → the child appenders, and when the child is the library's file appender, its batch
    /// target in Files (given to Forwarding by the appender once, so the public appender is not on the worker's path),
    /// which asks Layout for the batch's renderer through an interface Files declares → Layout through the renderer
    /// interface Text declares → Text's buffer: the appender names no Text type, Files no Layout type. Every folder has
    /// a row; a row lists exactly what the code uses, so a new use is a decision made here.
    /// </summary>
    private static readonly Dictionary<string, string[]> MayUse = new Dictionary<string, string[]>
    {
        // The public appenders: log4net's lifecycle and settings, and the wiring of everything below.
        ["Appender"] = new[] { "Capture", "Configuration", "Engine", "Files", "Forwarding", "Layout", "Log4netInternals", "Runtime" },
        // The call-site interceptor's runtime half: a log call that captures its location without a stack walk.
        ["CallSites"] = new[] { "Capture", "Log4netInternals" },
        // The public appenders' settings: log4net's text read, checked and reported into the types of the folders they set.
        ["Configuration"] = new[] { "Capture", "Engine", "Files" },
        // The async appenders' part under the public types: child appenders, the worker's sink, reports, metrics; a
        // batch goes to a file appender's target in Files directly.
        ["Forwarding"] = new[] { "Capture", "Engine", "Files", "Runtime" },
        // The fast layout: log4net's pattern and simple layouts compiled into parts that write a (captured) event; an
        // appender's layout, compiled again when it changes, gives its batch target in Files a renderer (Files' interface).
        ["Layout"] = new[] { "Capture", "Files", "Log4netInternals", "Runtime", "Text" },
        // What the calling thread copies out of a log4net event into a slot, and gives the children back as an event.
        ["Capture"] = new[] { "Engine", "Log4netInternals" },
        // The queues and the worker thread, generic over the slot: no log4net, no files.
        ["Engine"] = new[] { "Runtime" },
        // The file appenders' files: the sink each append is handed to (roll checks, rendering through Text's renderer
        // interface, the write), the writer (open, retry, header and footer, flush, lengths) and the file's locks,
        // shares, rolls and names; it writes the encoded events of Text.
        ["Files"] = new[] { "Runtime", "Text" },
        // The file appenders' text: events encoded into a byte buffer written to a stream, and the renderer interface
        // through which a layout writes an event into it.
        ["Text"] = new[] { "Runtime" },
        // Every private or by-name part of log4net the library reaches, with what it does when one is missing.
        ["Log4netInternals"] = new string[0],
        // Helpers of the runtime itself: JIT warm-up, cache-line padding, pages touched before use.
        ["Runtime"] = new string[0],
    };

    private static readonly Regex NamespaceLine = new Regex(@"^namespace ([\w.]+)\s*(;|$)", RegexOptions.Multiline);
    private static readonly Regex UsingLine = new Regex(@"^\s*using (?:static )?(?:\w+ = )?LowLatencyLog\.(\w+)[\w.]*;", RegexOptions.Multiline);
    private static readonly Regex Declaration = new Regex(@"\b(?:class|struct|interface|enum|record)\s+(\w+)");
    private static readonly Regex Name = new Regex(@"(?<![\w.])\w+(?:\.\w+)*");

    // A log4net type looked up by name: a string that is a log4net type's name, or a reflection lookup by name.
    private static readonly Regex Log4netTypeName = new Regex(@"""log4net\.[\w.+`]*(""|\{)");
    private static readonly Regex LookupByName = new Regex(
        @"\b(?:Type\.GetType|GetNestedType|GetField|GetProperty|GetMember|GetEvent|InvokeMember|CreateInstance)\s*\(|\.GetType\s*\(\s*[^)\s]|\.GetMethod\s*\(\s*[^)\s]");

    [Test]
    public void EveryFilesNamespace_IsItsFolder()
    {
        foreach (SourceFile file in SourceFiles())
        {
            string folder = Path.GetDirectoryName(file.Relative)!.Replace(Path.DirectorySeparatorChar, '.');
            string expected = folder.Length == 0 ? "LowLatencyLog" : "LowLatencyLog." + folder;
            Assert.That(NamespaceLine.Match(file.Text).Groups[1].Value, Is.EqualTo(expected), file.Relative);
        }
    }

    [Test]
    public void EachFolder_UsesOnlyTheFoldersItMayUse()
    {
        var wrong = new List<string>();
        foreach (SourceFile file in SourceFiles())
        {
            foreach ((string to, string type) in Uses(file))
            {
                if (!MayUse[file.Folder].Contains(to))
                {
                    wrong.Add($"{file.Relative}: {file.Folder} -> {to} ({type}), which {file.Folder} may not use");
                }
            }
        }

        Assert.That(wrong, Is.Empty, "a folder uses one its row of MayUse does not list:\n" + string.Join("\n", wrong));
    }

    [Test]
    public void EveryFolderMayUseIsMadeUseOf_AndEveryFolderHasARow()
    {
        SourceFile[] files = SourceFiles();
        Assert.That(MayUse.Keys, Is.EquivalentTo(files.Select(f => f.Folder).Distinct()), "one row of MayUse per top-level folder");
        var used = files.SelectMany(f => Uses(f).Select(u => (From: f.Folder, u.To))).ToHashSet();
        foreach (IGrouping<string, string> row in used.GroupBy(u => u.From, u => u.To).OrderBy(g => g.Key, StringComparer.Ordinal))
        {
            TestContext.Out.WriteLine($"{row.Key} uses {string.Join(", ", row.OrderBy(to => to, StringComparer.Ordinal))}");
        }

        string[] unused = MayUse.SelectMany(row => row.Value.Where(to => !used.Contains((row.Key, to))).Select(to => $"{row.Key} -> {to}")).ToArray();
        Assert.That(unused, Is.Empty, "MayUse allows what no code does (remove it, so a new use is a decision):\n" + string.Join("\n", unused));
    }

    [Test]
    public void TheFoldersMayUse_HasNoCycle()
    {
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
            foreach (string next in MayUse[node].OrderBy(n => n, StringComparer.Ordinal))
            {
                Visit(next, path);
            }

            path.Pop();
            state[node] = 2;
            order.Add(node);
        }

        foreach (string node in MayUse.Keys.OrderBy(n => n, StringComparer.Ordinal))
        {
            Visit(node, new Stack<string>());
        }

        TestContext.Out.WriteLine("from the bottom up: " + string.Join(", ", order));
        Assert.That(order, Has.Count.EqualTo(MayUse.Count));
    }

    [Test]
    public void EveryUsingOfALibraryFolder_NamesATypeOfIt()
    {
        var stale = new List<string>();
        foreach (SourceFile file in SourceFiles())
        {
            HashSet<string> used = Uses(file).Select(u => u.To).ToHashSet();
            foreach (Match match in UsingLine.Matches(file.Text))
            {
                string to = match.Groups[1].Value;
                if (to != file.Folder && !used.Contains(to))
                {
                    stale.Add($"{file.Relative}: {match.Value.Trim()} names no type of {to}");
                }
            }
        }

        Assert.That(stale, Is.Empty, string.Join("\n", stale));
    }

    [Test]
    public void OnlyLog4netInternals_ReachesPrivateMembersOrLooksLog4netTypesUpByName()
    {
        var wrong = new List<string>();
        foreach (SourceFile file in SourceFiles().Where(f => f.Folder != "Log4netInternals"))
        {
            string[] lines = file.Text.Split('\n');
            for (int i = 0; i < lines.Length; i++)
            {
                string line = lines[i];
                if (line.TrimStart().StartsWith("//", StringComparison.Ordinal))
                {
                    continue;
                }

                string code = CodeOnly(line);
                string? what = line.Contains("BindingFlags.NonPublic", StringComparison.Ordinal) ? "a private member"
                    : line.Contains("UnsafeAccessor(", StringComparison.Ordinal) ? "a private member"
                    : Log4netTypeName.IsMatch(line) ? "a log4net type's name"
                    : LookupByName.IsMatch(code) ? "a lookup by name"
                    : null;
                if (what != null)
                {
                    wrong.Add($"{file.Relative}:{i + 1}: {what}, outside Log4netInternals: {line.Trim()}");
                }
            }
        }

        Assert.That(wrong, Is.Empty, string.Join("\n", wrong));
    }

    /// <summary>Each folder other than the file's own that the file's code names a type of, with the first such type.</summary>
    private static IEnumerable<(string To, string Type)> Uses(SourceFile file)
    {
        Dictionary<string, List<string>> declared = Declared();
        var visible = UsingLine.Matches(file.Text).Select(m => m.Groups[1].Value).Append(file.Folder).ToHashSet();
        var found = new Dictionary<string, string>();
        foreach (Match match in Name.Matches(CodeOnly(file.Text)))
        {
            // A dotted name: a type visible through a using or the file's own folder (T, T.Member), or a type qualified
            // by its folder (LowLatencyLog.X.T, X.T).
            string[] parts = match.Value.Split('.');
            int first = parts[0] == "LowLatencyLog" ? 1 : 0;
            if (first >= parts.Length)
            {
                continue;
            }

            foreach ((string folder, string type) in Candidates(parts, first, declared))
            {
                bool named = folder == parts[first] || visible.Contains(folder);
                if (named && folder != file.Folder && !found.ContainsKey(folder))
                {
                    found[folder] = type;
                }
            }
        }

        return found.Select(kv => (kv.Key, kv.Value));
    }

    /// <summary>The folders a dotted name may name a type of: the first part as a type, or the second qualified by its folder.</summary>
    private static IEnumerable<(string Folder, string Type)> Candidates(string[] parts, int first, Dictionary<string, List<string>> declared)
    {
        if (declared.TryGetValue(parts[first], out List<string>? folders))
        {
            foreach (string folder in folders)
            {
                yield return (folder, parts[first]);
            }
        }

        if (first + 1 < parts.Length && MayUse.ContainsKey(parts[first]) &&
            declared.TryGetValue(parts[first + 1], out List<string>? qualified) && qualified.Contains(parts[first]))
        {
            yield return (parts[first], parts[first + 1]);
        }
    }

    /// <summary>Every type name the library declares, with the top-level folders that declare it.</summary>
    private static Dictionary<string, List<string>> Declared()
    {
        var declared = new Dictionary<string, List<string>>();
        foreach (SourceFile file in SourceFiles())
        {
            foreach (Match match in Declaration.Matches(CodeOnly(file.Text)))
            {
                string name = match.Groups[1].Value;
                if (!declared.TryGetValue(name, out List<string>? folders))
                {
                    declared[name] = folders = new List<string>();
                }

                if (!folders.Contains(file.Folder))
                {
                    folders.Add(file.Folder);
                }
            }
        }

        return declared;
    }

    /// <summary>The text without comments and without strings (an interpolated string keeps the code of its holes).</summary>
    private static string CodeOnly(string text)
    {
        var code = new StringBuilder(text.Length);
        int i = 0;
        Code(text, ref i, code, inHole: false);
        return code.ToString();
    }

    private static void Code(string text, ref int i, StringBuilder code, bool inHole)
    {
        int braces = 0;
        while (i < text.Length)
        {
            char c = text[i];
            char next = i + 1 < text.Length ? text[i + 1] : '\0';
            if (c == '/' && next == '/')
            {
                while (i < text.Length && text[i] != '\n')
                {
                    i++;
                }
            }
            else if (c == '/' && next == '*')
            {
                int end = text.IndexOf("*/", i + 2, StringComparison.Ordinal);
                i = end < 0 ? text.Length : end + 2;
            }
            else if (c == '\'')
            {
                for (i++; i < text.Length && text[i] != '\''; i++)
                {
                    i += text[i] == '\\' ? 1 : 0;
                }

                i++;
                code.Append(" ' ");
            }
            else if (c == '"' || ((c == '@' || c == '$') && next == '"'))
            {
                bool verbatim = c == '@';
                bool interpolated = c == '$';
                i += c == '"' ? 1 : 2;
                code.Append(" \" ");
                while (i < text.Length)
                {
                    char s = text[i];
                    if (s == '\\' && !verbatim)
                    {
                        i += 2;
                    }
                    else if (s == '"' && verbatim && i + 1 < text.Length && text[i + 1] == '"')
                    {
                        i += 2;
                    }
                    else if (s == '"')
                    {
                        i++;
                        break;
                    }
                    else if (interpolated && s == '{' && i + 1 < text.Length && text[i + 1] == '{')
                    {
                        i += 2;
                    }
                    else if (interpolated && s == '{')
                    {
                        i++;
                        code.Append(' ');
                        Code(text, ref i, code, inHole: true);
                        code.Append(' ');
                    }
                    else
                    {
                        i++;
                    }
                }
            }
            else if (inHole && c == '{')
            {
                braces++;
                code.Append(c);
                i++;
            }
            else if (inHole && c == '}')
            {
                i++;
                if (braces-- == 0)
                {
                    return;
                }

                code.Append(c);
            }
            else
            {
                code.Append(c);
                i++;
            }
        }
    }

    private sealed class SourceFile
    {
        public SourceFile(string relative, string text)
        {
            Relative = relative;
            Text = text;
            int slash = relative.IndexOfAny(new[] { '/', '\\' });
            Folder = slash < 0 ? "" : relative.Substring(0, slash);
        }

        public string Relative { get; }

        public string Text { get; }

        public string Folder { get; }
    }

    private static SourceFile[]? s_files;

    private static SourceFile[] SourceFiles()
    {
        if (s_files != null)
        {
            return s_files;
        }

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
        return s_files = files.Select(f => new SourceFile(Path.GetRelativePath(src, f), File.ReadAllText(f))).ToArray();
    }
}
