using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Globalization;
using System.Linq;
using System.Text;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>
/// log4net as the oracle: generated configurations and call sequences run through log4net's own synchronous appenders
/// (<c>ForwardingAppender</c>, <c>FileAppender</c>, <c>RollingFileAppender</c>, immediate flush) and through ours
/// (each async appender, <c>BufferedFileAppender</c>, <c>RollingBufferedFileAppender</c>, log4net's file appenders behind
/// ours), each in its own repositories and folder, from producer threads of the same names and cultures making the
/// calls one at a time; the files must be the same, byte for byte, and log4net's internal warnings and errors the same
/// (<see cref="OracleRunner"/> says which ones ours may add). Most cases fix each event's time at the call, so dates
/// compare as written; the others mask only the digits between ⟦ and ⟧. Under <c>overflow=Discard</c> our lines
/// must be the oracle's in its order, less some INFO and DEBUG ones. Every case must compare at least one line. With
/// <see cref="OracleFeature.Threads"/>, some steps have threads logging at the same time; such a case is compared by
/// what log4net defines there (<see cref="OracleInterleaving"/>).
/// Date and composite rolls read a clock the case moves between batches (<see cref="OracleRolls"/>); every file of each
/// side's folder compares, by name (rolled files carry their dates) and bytes.
/// </summary>
/// <remarks>
/// <para>
/// CI runs each feature alone over the baseline (<c>Generated_Reentrant</c>, ...; see <see cref="OracleFeature"/>), four
/// pairs (<c>Generated_Mutated_Buffering</c>, <c>Generated_Impure_Filters</c>, <c>Generated_Cultures_Providers</c>,
/// <c>Generated_Threads_Long</c>) and every feature together
/// (<c>Generated_All_0</c> ... <c>_3</c>), from fixed seeds. A failing case is minimized and
/// printed as the XML of both sides and the calls in C#, with the command that replays it.
/// </para>
/// <para>
/// Environment variables (read by every test of this fixture):
/// <c>LLL_ORACLE_SEED</c> (the seed, default fixed; the <c>All</c> batches add their number), <c>LLL_ORACLE_CASES</c> (cases per test),
/// <c>LLL_ORACLE_CASE</c> (only this case index, to replay one), <c>LLL_ORACLE_FEATURES</c> (a comma list replacing the
/// test's features: <c>All</c>, names of <see cref="OracleFeature"/>, <c>-Name</c> to leave one out).
/// A wider run: <c>LLL_ORACLE_SEED=$RANDOM LLL_ORACLE_CASES=2000 dotnet test tests/LowLatencyLog.Tests -c Release
/// --no-build --filter "Name=Generated_All_0"</c>.
/// </para>
/// </remarks>
[Category("Oracle")]
[NonParallelizable] // thread names, context and the internal log are process-wide
public sealed class GeneratedOracleTests
{
    private const int FixedSeed = 20261128;
    private const int CasesPerFeature = 20;
    private const int CasesPerAllBatch = 60;

    /// <summary>Each feature alone over the baseline, and the baseline itself.</summary>
    public static IEnumerable<TestCaseData> FeatureCases()
    {
        yield return new TestCaseData(OracleFeature.None, 0).SetName("Generated_Baseline");
        foreach (OracleFeature feature in Enum.GetValues<OracleFeature>().Where(f => (f & OracleFeature.All) != 0 && f != OracleFeature.All))
        {
            yield return new TestCaseData(feature, 0).SetName("Generated_" + feature);
        }

        // Pairs that show a message log4net already rendered (a buffering appender's fix, a string filter) and the
        // async appender rendering it again; a thread's culture against the format's provider; bursts from several
        // threads into a small buffer.
        yield return new TestCaseData(OracleFeature.Mutated | OracleFeature.Buffering, 0).SetName("Generated_Mutated_Buffering");
        yield return new TestCaseData(OracleFeature.Impure | OracleFeature.Filters, 0).SetName("Generated_Impure_Filters");
        yield return new TestCaseData(OracleFeature.Cultures | OracleFeature.Providers | OracleFeature.Methods, 0).SetName("Generated_Cultures_Providers");
        yield return new TestCaseData(OracleFeature.Threads | OracleFeature.Long | OracleFeature.Children, 0).SetName("Generated_Threads_Long");
        for (int batch = 0; batch < 4; batch++)
        {
            yield return new TestCaseData(OracleFeature.All, batch).SetName("Generated_All_" + batch);
        }
    }

    [TestCaseSource(nameof(FeatureCases))]
    public void SameFilesAsLog4netsOwnAppenders(OracleFeature features, int batch)
    {
        string testName = TestContext.CurrentContext.Test.Name;
        int baseSeed = ReadInt("LLL_ORACLE_SEED") ?? FixedSeed;
        int seed = baseSeed + batch;
        int cases = ReadInt("LLL_ORACLE_CASES") ?? (features == OracleFeature.All ? CasesPerAllBatch : CasesPerFeature);
        int? only = ReadInt("LLL_ORACLE_CASE");
        features = ReadFeatures(features);
        Assert.That((features & OracleFeature.Location) == 0 ? null : OracleLocation.FramesNotKept(), Is.Null);
        IEnumerable<int> indexes = only != null ? new[] { only.Value } : Enumerable.Range(0, cases);

        var failures = new List<(int Index, string Difference)>();
        int checkedCases = 0;
        int logCalls = 0;
        long lines = 0;
        int threads = 0;
        int together = 0;
        int clockSteps = 0;
        var watch = Stopwatch.StartNew();
        foreach (int index in indexes)
        {
            OracleCase oracleCase = new OracleGenerator(seed, index, features).Generate(seed, index);
            checkedCases++;
            logCalls += oracleCase.Steps.Count(s => s.Kind == "log") + oracleCase.Steps.Where(s => s.Kind == "burst").Sum(s => s.Count)
                + oracleCase.Steps.Sum(s => s.Together?.Producers.Sum(p => p.Count) ?? 0);
            threads += oracleCase.Threads.Count;
            together += oracleCase.Steps.Count(s => s.Kind == "concurrent");
            clockSteps += oracleCase.Steps.Count(s => s.Kind == "clock");
            OracleResult result = OracleRunner.Run(oracleCase);
            lines += result.Lines;
            if (result.Difference != null)
            {
                failures.Add((index, result.Difference));
            }
            else if (result.Lines == 0)
            {
                failures.Add((index, "the case compared no line: both sides wrote nothing (the generator must end each case with a line written)"));
            }
        }

        TestContext.Out.WriteLine($"{checkedCases} cases, {threads} producer threads, {together} steps of threads logging at once, {clockSteps} clock steps, {logCalls} log calls, {lines} lines compared, features {features}, seed {seed}, {failures.Count} failed, {watch.Elapsed.TotalSeconds:F1} s");
        Assert.That(checkedCases, Is.GreaterThan(0));
        if (failures.Count == 0)
        {
            return;
        }

        // The first failure minimized in full; the others by their first difference.
        (int firstIndex, string firstDifference) = failures[0];
        OracleCase first = new OracleGenerator(seed, firstIndex, features).Generate(seed, firstIndex);
        OracleCase minimized = OracleShrinker.Minimize(first, maxRuns: only != null ? 400 : 150, out string minimizedDifference);
        var report = new StringBuilder();
        report.AppendLine($"{failures.Count} of {checkedCases} generated cases differ from log4net (features {features}, seed {seed}).");
        report.AppendLine($"Case {firstIndex}: {firstDifference}");
        report.AppendLine($"Case {firstIndex}, minimized: {minimizedDifference}");
        string? featureVariable = Environment.GetEnvironmentVariable("LLL_ORACLE_FEATURES");
        string replayFeatures = string.IsNullOrWhiteSpace(featureVariable) ? "" : $"LLL_ORACLE_FEATURES=\"{featureVariable}\" ";
        report.AppendLine($"Replay: {replayFeatures}LLL_ORACLE_SEED={baseSeed} LLL_ORACLE_CASE={firstIndex} dotnet test tests/LowLatencyLog.Tests -c Release --no-build --filter \"Name={testName}\"");
        report.AppendLine(minimized.Describe());
        foreach ((int index, string difference) in failures.Skip(1).Take(10))
        {
            report.AppendLine($"case {index}: {string.Join(Environment.NewLine, difference.Split('\n').Take(3).Select(l => l.Length > 300 ? l.Substring(0, 300) + "…" : l))}");
        }

        Assert.Fail(report.ToString());
    }

    [Test]
    public void TheNormalizer_MasksOnlyTheDigitsBetweenTheDateMarks()
    {
        byte[] a = Encoding.UTF8.GetBytes("x ⟦2026-11-28 03:00:00,123⟧ [t] 42 ⟦17⟧ é😀\n⟦");
        byte[] b = Encoding.UTF8.GetBytes("x ⟦2026-11-28 03:00:01,999⟧ [t] 42 ⟦4521⟧ é😀\n⟦");
        Assert.That(OracleCompare.Normalize(a), Is.EqualTo(Encoding.UTF8.GetBytes("x ⟦#-#-# #:#:#,#⟧ [t] 42 ⟦#⟧ é😀\n⟦")));
        Assert.That(OracleCompare.Normalize(b), Is.EqualTo(OracleCompare.Normalize(a)));
        Assert.That(OracleCompare.Normalize(a, maskDates: false), Is.EqualTo(a));

        // The format, the separators and the zone still compare.
        Assert.That(OracleCompare.Normalize(Encoding.UTF8.GetBytes("⟦2026-11-28T03:00:00Z⟧")), Is.Not.EqualTo(OracleCompare.Normalize(Encoding.UTF8.GetBytes("⟦2026-11-28 03:00:00⟧"))));
        Assert.That(OracleCompare.Normalize(Encoding.UTF8.GetBytes("⟦03:00:00,123⟧")), Is.Not.EqualTo(OracleCompare.Normalize(Encoding.UTF8.GetBytes("⟦03:00:00.123⟧"))));
        Assert.That(OracleCompare.Normalize(Encoding.UTF8.GetBytes("[a] b")), Is.EqualTo(Encoding.UTF8.GetBytes("[a] b")));
        byte[] frames = Encoding.UTF8.GetBytes("x<stackTrace>System.X: no\n   at A.B(Object o)</stackTrace></log4net.Error>\n   at C.D()\n");
        Assert.That(OracleCompare.Normalize(frames), Is.EqualTo(Encoding.UTF8.GetBytes("x<stackTrace>System.X: no</stackTrace></log4net.Error>\n   at C.D()\n")));
        Assert.That(OracleCompare.CountLines(Encoding.UTF8.GetBytes("a\nb")), Is.EqualTo(2));
        Assert.That(OracleCompare.CountLines(Encoding.UTF8.GetBytes("a\nb\n")), Is.EqualTo(2));
    }

    [Test]
    public void TheSameSeedAndIndex_GiveTheSameCase_AndTheComparisonSeesADifference()
    {
        string one = new OracleGenerator(5, 3, OracleFeature.All).Generate(5, 3).Describe();
        string two = new OracleGenerator(5, 3, OracleFeature.All).Generate(5, 3).Describe();
        string other = new OracleGenerator(5, 4, OracleFeature.All).Generate(5, 4).Describe();
        Assert.That(two, Is.EqualTo(one));
        Assert.That(other, Is.Not.EqualTo(one));

        // A plain case passes, and two files that differ are reported with the line that differs.
        var plain = new OracleCase { Trees = { new TreeSpec { Children = { new ChildSpec { Pattern = "%level %message%newline" } } } } };
        plain.Steps.Add(new StepSpec { Method = "Plain", Message = ArgSpec.Of("hello") });
        plain.Steps.Add(new StepSpec { Method = "Format", Format = "{0} and {1}", Args = { ArgSpec.Of(1), ArgSpec.Of("two") }, Level = "Warn" });
        OracleResult result = OracleRunner.Run(plain);
        Assert.That(result.Difference, Is.Null);
        Assert.That(result.Lines, Is.EqualTo(2));
        string? difference = OracleCompare.Difference(Encoding.UTF8.GetBytes("one\ntwo\n"), Encoding.UTF8.GetBytes("one\ntwO\n"));
        Assert.That(difference, Does.Contain("differs at byte 6").And.Contain("line 2").And.Contain("\"two\\n\"").And.Contain("\"twO\\n\""));
    }

    private static int? ReadInt(string name)
    {
        string? text = Environment.GetEnvironmentVariable(name);
        return string.IsNullOrWhiteSpace(text) ? null : int.Parse(text, CultureInfo.InvariantCulture);
    }

    private static OracleFeature ReadFeatures(OracleFeature features)
    {
        string? text = Environment.GetEnvironmentVariable("LLL_ORACLE_FEATURES");
        if (string.IsNullOrWhiteSpace(text))
        {
            return features;
        }

        OracleFeature result = OracleFeature.None;
        foreach (string token in text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries))
        {
            if (token.StartsWith('-'))
            {
                result &= ~Enum.Parse<OracleFeature>(token.Substring(1), ignoreCase: true);
            }
            else
            {
                result |= Enum.Parse<OracleFeature>(token, ignoreCase: true);
            }
        }

        return result;
    }
}
