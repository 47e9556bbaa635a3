using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Text;
using System.Threading;
using log4net;
using LowLatencyLog.Tests.Support;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>
/// Runs a case twice, on a fresh thread of the same name each time: through the oracle (log4net's own synchronous
/// appenders) and through ours, each in its own repositories and folder, then compares the files byte for byte.
/// </summary>
internal static class OracleRunner
{
    /// <summary>How long one side may take for its calls and shutdown before the case counts as hung.</summary>
    private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(60);

    private const byte DateOpen0 = 0xE2, DateOpen1 = 0x9F, DateOpen2 = 0xA6, DateClose2 = 0xA7; // ⟦ and ⟧ in UTF-8

    /// <summary>Null when both sides left the same files with the same bytes; otherwise what differs.</summary>
    public static string? Check(OracleCase oracleCase)
    {
        Side oracle = RunSide(oracleCase, oracle: true);
        Side ours = RunSide(oracleCase, oracle: false);
        if (oracle.Hung)
        {
            return "the oracle (log4net alone) did not finish: the generator made a case log4net cannot run";
        }

        if (ours.Hung)
        {
            return $"ours did not finish its calls and shutdown within {HangLimit.TotalSeconds} s (a log call or Close hangs)";
        }

        if (!ours.Errors.SequenceEqual(oracle.Errors))
        {
            return "exceptions reached the application: ours [" + string.Join("; ", ours.Errors) + "], oracle [" + string.Join("; ", oracle.Errors) + "]";
        }

        var names = oracle.Files.Keys.Union(ours.Files.Keys).OrderBy(n => n, StringComparer.Ordinal).ToList();
        foreach (string name in names)
        {
            bool inOracle = oracle.Files.TryGetValue(name, out byte[]? expected);
            bool inOurs = ours.Files.TryGetValue(name, out byte[]? actual);
            if (!inOracle || !inOurs)
            {
                return $"{name}: only in {(inOracle ? "the oracle's" : "our")} folder; oracle files [{string.Join(", ", oracle.Files.Keys)}], ours [{string.Join(", ", ours.Files.Keys)}]"
                    + InternalErrors(ours);
            }

            string? difference = Difference(expected!, actual!);
            if (difference != null)
            {
                return $"{name}: {difference}" + InternalErrors(ours);
            }
        }

        return null;
    }

    private static string InternalErrors(Side side) =>
        side.InternalErrors.Length == 0 ? "" : Environment.NewLine + "our internal errors: " + string.Join(" | ", side.InternalErrors.Take(3).Select(e => Clip(e, 300)));

    private sealed class Side
    {
        public readonly Dictionary<string, byte[]> Files = new Dictionary<string, byte[]>();
        public readonly List<string> Errors = new List<string>();
        public bool Hung;
        public string[] InternalErrors = Array.Empty<string>();
    }

    private static Side RunSide(OracleCase oracleCase, bool oracle)
    {
        var side = new Side();
        var harnesses = oracleCase.Trees.Select(t => new Log4netHarness(t.ToXml(oracle))).ToList();
        var loggers = new Dictionary<(int, string), ILog>();
        var context = new RunContext((repo, name) =>
        {
            if (!loggers.TryGetValue((repo, name), out ILog? log))
            {
                log = loggers[(repo, name)] = harnesses[repo].Logger(name);
            }

            return log;
        });

        void Reconfigure(int repo) => harnesses[repo].Configure(oracleCase.Reconfigured![repo].ToXml(oracle));

        var thread = new Thread(
            () =>
            {
                for (int i = 0; i < oracleCase.Steps.Count; i++)
                {
                    try
                    {
                        oracleCase.Steps[i].Run(context, Reconfigure);
                    }
                    catch (Exception exception)
                    {
                        side.Errors.Add($"step {i}: {exception.GetType().Name}: {Clip(exception.Message, 200)}");
                    }
                }

                foreach (Log4netHarness harness in harnesses)
                {
                    harness.Shutdown();
                }
            },
            16 * 1024 * 1024) { Name = "oracle-case", IsBackground = true };
        thread.Start();
        if (!thread.Join(HangLimit))
        {
            side.Hung = true;
            return side; // the hung thread keeps its repositories; nothing else can be done for them
        }

        side.InternalErrors = harnesses.SelectMany(h => h.InternalErrors).ToArray();
        for (int r = 0; r < harnesses.Count; r++)
        {
            foreach (string path in Directory.GetFiles(harnesses[r].Directory, "*", SearchOption.AllDirectories))
            {
                side.Files[$"repo{r}/{Path.GetRelativePath(harnesses[r].Directory, path)}"] = Normalize(File.ReadAllBytes(path));
            }

            harnesses[r].Dispose();
        }

        return side;
    }

    /// <summary>
    /// Dates and timestamps differ between the two runs: the patterns put them between ⟦ and ⟧, kept as ⟦⟧. The stack
    /// frames in log4net's text for an object it could not render (between <c>&lt;stackTrace&gt;</c> tags) depend on
    /// what the JIT inlined by then: only the exception's first line is kept.
    /// </summary>
    internal static byte[] Normalize(byte[] bytes) => DropFrames(DropDates(bytes));

    private static readonly byte[] StackOpen = Encoding.ASCII.GetBytes("<stackTrace>");
    private static readonly byte[] StackClose = Encoding.ASCII.GetBytes("</stackTrace>");

    private static byte[] DropFrames(byte[] bytes)
    {
        var output = new List<byte>(bytes.Length);
        int at = 0;
        while (true)
        {
            int open = IndexOf(bytes, StackOpen, at);
            int close = open < 0 ? -1 : IndexOf(bytes, StackClose, open);
            if (close < 0)
            {
                output.AddRange(new ArraySegment<byte>(bytes, at, bytes.Length - at));
                return output.ToArray();
            }

            int lineEnd = Array.IndexOf(bytes, (byte)'\n', open, close - open);
            int keep = lineEnd < 0 ? close : lineEnd;
            output.AddRange(new ArraySegment<byte>(bytes, at, keep - at));
            at = close;
        }
    }

    private static int IndexOf(byte[] bytes, byte[] value, int start)
    {
        return bytes.AsSpan(start).IndexOf(value) is var i && i >= 0 ? start + i : -1;
    }

    private static byte[] DropDates(byte[] bytes)
    {
        var output = new List<byte>(bytes.Length);
        for (int i = 0; i < bytes.Length; i++)
        {
            output.Add(bytes[i]);
            if (i + 2 < bytes.Length && bytes[i] == DateOpen0 && bytes[i + 1] == DateOpen1 && bytes[i + 2] == DateOpen2)
            {
                int close = i + 3;
                while (close + 2 < bytes.Length && !(bytes[close] == DateOpen0 && bytes[close + 1] == DateOpen1 && bytes[close + 2] == DateClose2) && close - i < 64)
                {
                    close++;
                }

                output.Add(bytes[i + 1]);
                output.Add(bytes[i + 2]);
                i = close - 1;
            }
        }

        return output.ToArray();
    }

    internal static string? Difference(byte[] expected, byte[] actual)
    {
        int length = Math.Min(expected.Length, actual.Length);
        int at = 0;
        while (at < length && expected[at] == actual[at])
        {
            at++;
        }

        if (at == length && expected.Length == actual.Length)
        {
            return null;
        }

        int lineStart = at;
        while (lineStart > 0 && expected[lineStart - 1] != (byte)'\n' && at - lineStart < 200)
        {
            lineStart--;
        }

        return $"differs at byte {at} (oracle {expected.Length} B, ours {actual.Length} B), line {Count(expected, at) + 1}:"
            + Environment.NewLine + "  oracle: " + Show(expected, lineStart)
            + Environment.NewLine + "  ours:   " + Show(actual, lineStart);
    }

    private static int Count(byte[] bytes, int end)
    {
        int lines = 0;
        for (int i = 0; i < end; i++)
        {
            lines += bytes[i] == (byte)'\n' ? 1 : 0;
        }

        return lines;
    }

    private static string Show(byte[] bytes, int start)
    {
        if (start >= bytes.Length)
        {
            return "(end of file)";
        }

        string text = Encoding.UTF8.GetString(bytes, start, Math.Min(400, bytes.Length - start));
        return ArgSpec.Literal(text);
    }

    private static string Clip(string text, int max) => text.Length <= max ? text : text.Substring(0, max) + "…";

    /// <summary>
    /// Shrinks a failing case: drops the reconfiguration, a repository, parts of each tree, and steps, keeping every
    /// change after which the case still fails; stops at <paramref name="maxRuns"/> checks.
    /// </summary>
    public static OracleCase Minimize(OracleCase failing, int maxRuns, out string difference)
    {
        difference = Check(failing) ?? "(passed when run again: the difference depends on timing)";
        if (difference.StartsWith("(passed", StringComparison.Ordinal))
        {
            return failing;
        }

        int runs = 1;
        var watch = Stopwatch.StartNew();
        OracleCase current = failing;
        string lastDifference = difference;

        bool Try(OracleCase candidate)
        {
            if (runs >= maxRuns)
            {
                return false;
            }

            runs++;
            string? result = Check(candidate);
            if (result == null)
            {
                return false;
            }

            current = candidate;
            lastDifference = result;
            return true;
        }

        if (current.Reconfigured != null)
        {
            Try(current.With(steps: current.Steps.Where(s => s.Kind != "reconfigure").ToList(), dropReconfigured: true));
        }

        if (current.Trees.Count == 2)
        {
            for (int keep = 0; keep < 2 && current.Trees.Count == 2; keep++)
            {
                int kept = keep;
                var steps = current.Steps.Where(s => s.Kind == "context" || s.Repo == kept).Select(s => Renumbered(s)).ToList();
                OracleCase candidate = current.With(trees: new List<TreeSpec> { current.Trees[kept] }, steps: steps);
                candidate.Reconfigured = current.Reconfigured == null ? null : new List<TreeSpec> { current.Reconfigured[kept] };
                Try(candidate);
            }
        }

        // Steps, by halves, then quarters, down to one at a time.
        for (int size = Math.Max(1, current.Steps.Count / 2); size >= 1; size /= 2)
        {
            for (int start = 0; start < current.Steps.Count && runs < maxRuns;)
            {
                var steps = current.Steps.Take(start).Concat(current.Steps.Skip(start + size)).ToList();
                if (steps.Count == 0 || !Try(current.With(steps: steps)))
                {
                    start += size;
                }
            }

            if (size == 1)
            {
                break;
            }
        }

        // A reconfiguration before every log call: the second configuration alone.
        int firstLog = current.Steps.FindIndex(s => s.Kind == "log");
        if (current.Reconfigured != null && firstLog >= 0 && current.Steps.Take(firstLog).Any(s => s.Kind == "reconfigure"))
        {
            Try(current.With(trees: current.Reconfigured, steps: current.Steps.Where(s => s.Kind != "reconfigure").ToList(), dropReconfigured: true));
        }

        foreach (Func<TreeSpec, bool> simplify in TreeSimplifications())
        {
            for (int r = 0; r < current.Trees.Count; r++)
            {
                var trees = current.Trees.Select(t => t.Clone()).ToList();
                if (simplify(trees[r]))
                {
                    Try(current.With(trees: trees));
                }

                if (current.Reconfigured != null)
                {
                    var reconfigured = current.Reconfigured.Select(t => t.Clone()).ToList();
                    if (simplify(reconfigured[r]))
                    {
                        OracleCase candidate = current.With();
                        candidate.Reconfigured = reconfigured;
                        Try(candidate);
                    }
                }
            }
        }

        // Arguments and messages: plain short text where the kind of value does not matter.
        for (int i = 0; i < current.Steps.Count && runs < maxRuns; i++)
        {
            StepSpec step = current.Steps[i];
            if (step.Message is { } message && !(message.Kind == "value" && message.Value is string { Length: <= 8 }))
            {
                TryStep(i, s => s.Message = ArgSpec.Of("m"));
            }

            for (int a = 0; a < current.Steps[i].Args.Count && runs < maxRuns; a++)
            {
                ArgSpec arg = current.Steps[i].Args[a];
                if (!(arg.Kind == "value" && (arg.Value is not string || arg.Value is string { Length: <= 8 })))
                {
                    int index = a;
                    TryStep(i, s => s.Args[index] = ArgSpec.Of("v"));
                }
            }

            if (current.Steps[i].Format.Length > 100)
            {
                TryStep(i, s => s.Format = System.Text.RegularExpressions.Regex.Replace(s.Format, "(.)\\1{20,}|(é😀中){2,}", "$1$2"));
            }

            if (current.Steps[i].Exception is "huge" or "aggregate" or "inner" or "nonBmp" or "notThrown")
            {
                TryStep(i, s => s.Exception = "plain");
            }
        }

        void TryStep(int index, Action<StepSpec> change)
        {
            StepSpec copy = current.Steps[index].Clone();
            copy.Args = copy.Args.ToList();
            change(copy);
            var steps = current.Steps.ToList();
            steps[index] = copy;
            Try(current.With(steps: steps));
        }

        difference = lastDifference + Environment.NewLine + $"(minimized in {runs} runs, {watch.Elapsed.TotalSeconds:F0} s)";
        return current;
    }

    private static StepSpec Renumbered(StepSpec step)
    {
        StepSpec copy = step.Clone();
        copy.Repo = 0;
        return copy;
    }

    /// <summary>Each changes a tree in place and says whether it changed anything.</summary>
    private static IEnumerable<Func<TreeSpec, bool>> TreeSimplifications()
    {
        yield return t => Set(t.BufferingSize != null, () => t.BufferingSize = null);
        yield return t => Set(t.AsyncFilters.Count > 0, () => t.AsyncFilters.Clear());
        yield return t => Set(t.AsyncThreshold != null, () => t.AsyncThreshold = null);
        yield return t => Set(t.Fix != null, () => t.Fix = null);
        yield return t => Set(t.RootLevel != "ALL" || t.SubLoggerLevel != null, () =>
        {
            t.RootLevel = "ALL";
            t.SubLoggerLevel = null;
        });
        yield return t => Set(t.Children.Count > 1, () => t.Children.RemoveAt(1));
        yield return t => Set(t.Children.Count > 1, () => t.Children.RemoveAt(0));
        yield return t => Set(t.Children.Any(c => c.Filters.Count > 0 || c.Threshold != null), () => t.Children.ForEach(c =>
        {
            c.Filters.Clear();
            c.Threshold = null;
        }));
        yield return t => Set(t.Children.Any(c => c.Rolls), () => t.Children.ForEach(c =>
            c.Kind = c.Kind switch { ChildKind.RollingBuffered => ChildKind.Buffered, ChildKind.Log4netRolling => ChildKind.Log4netFile, _ => c.Kind }));
        yield return t => Set(t.Children.Any(c => c.Pattern != "%message%newline"), () => t.Children.ForEach(c => c.Pattern = "%message%newline"));
    }

    private static bool Set(bool applies, Action change)
    {
        if (applies)
        {
            change();
        }

        return applies;
    }
}
