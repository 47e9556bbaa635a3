using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>Shrinks a failing case to a smaller one that fails the same way.</summary>
internal static class OracleShrinker
{
    /// <summary>
    /// Shrinks a failing case: drops the reconfiguration, a repository, parts of each tree, and steps, keeping every
    /// change after which the case still fails; stops at <paramref name="maxRuns"/> checks.
    /// </summary>
    public static OracleCase Minimize(OracleCase failing, int maxRuns, out string difference)
    {
        OracleResult first = OracleRunner.Run(failing);
        if (first.Difference == null)
        {
            difference = "(passed when run again: the difference depends on timing)";
            return failing;
        }

        difference = first.Difference;

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
            // Only a candidate that fails the same way (same kind, same file) is kept: a change that makes another
            // difference (a second message converter with an impure argument, say) would mislead.
            OracleResult result = OracleRunner.Run(candidate);
            if (result.Difference == null || result.Kind != first.Kind)
            {
                return false;
            }

            current = candidate;
            lastDifference = result.Difference;
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

            for (int tries = 0; current.Steps[i].Together is { } together && tries < 8 && runs < maxRuns; tries++)
            {
                if (OracleConcurrent.Smaller(together).All(smaller => !TryStep(i, s => s.Together = smaller)))
                {
                    break;
                }
            }
        }

        bool TryStep(int index, Action<StepSpec> change)
        {
            StepSpec copy = current.Steps[index].Clone();
            copy.Args = copy.Args.ToList();
            change(copy);
            var steps = current.Steps.ToList();
            steps[index] = copy;
            return Try(current.With(steps: steps));
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
        // A child without a message converter stays without one: with an impure argument, a second child rendering the
        // message is a difference by design.
        yield return t => Set(t.Children.Any(c => c.Pattern != Plain(c)), () => t.Children.ForEach(c => c.Pattern = Plain(c)));
    }

    private static string Plain(ChildSpec child) =>
        child.Pattern.StartsWith("%-5level %logger ", StringComparison.Ordinal) ? child.Pattern : // compared by level under Discard
        System.Text.RegularExpressions.Regex.IsMatch(child.Pattern, "%[-0-9.]*(m|message)(?![a-z])") ? "%message%newline" : "%level%newline";

    private static bool Set(bool applies, Action change)
    {
        if (applies)
        {
            change();
        }

        return applies;
    }
}
