using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>How a producer thread of a case is made.</summary>
public enum ThreadKind
{
    /// <summary>A thread with a name (log4net writes the name).</summary>
    Named,

    /// <summary>A thread without a name (log4net writes its managed id; the comparison maps it to its index).</summary>
    Unnamed,

    /// <summary>Each call on a thread-pool thread (".NET TP Worker"), its thread context cleared first.</summary>
    Pool,
}

/// <summary>One producer thread of a case: its kind, name and culture.</summary>
public sealed class ThreadSpec
{
    public ThreadKind Kind;
    public string Name = "oracle-case";

    /// <summary>The thread's <c>CurrentCulture</c> and <c>CurrentUICulture</c>: "" is the invariant culture, null the process's.</summary>
    public string? Culture;

    public CultureInfo CultureInfo => string.IsNullOrEmpty(Culture) ? CultureInfo.InvariantCulture : CultureInfo.GetCultureInfo(Culture);

    public override string ToString() => $"{Kind} \"{(Kind == ThreadKind.Named ? Name : "")}\" culture {(Culture == null ? "of the process" : $"\"{Culture}\"")}";
}

/// <summary>One generated case: the configuration of each repository (and the one it is reconfigured with), and the steps.</summary>
public sealed class OracleCase
{
    public int Seed;
    public int Index;
    public OracleFeature Features;
    public List<TreeSpec> Trees = new List<TreeSpec>();
    public List<TreeSpec>? Reconfigured;
    public List<StepSpec> Steps = new List<StepSpec>();

    /// <summary>The producer threads; each step names one. The steps run one at a time, in order, each on its thread.</summary>
    public List<ThreadSpec> Threads = new List<ThreadSpec> { new ThreadSpec() };

    /// <summary>
    /// Each event's time set at the call (by a filter on the first appender) from the step's <see cref="StepSpec.Time"/>:
    /// dates and timestamps then compare unmasked. Otherwise the real clock's, with the digits masked.
    /// </summary>
    public bool FixedTime;

    /// <summary>With a child rolling by date, the local ticks its clock starts at (<see cref="OracleRolls"/>); else 0.</summary>
    public long ClockStart;

    public OracleCase With(List<TreeSpec>? trees = null, List<StepSpec>? steps = null, bool dropReconfigured = false) => new OracleCase
    {
        Seed = Seed,
        Index = Index,
        Features = Features,
        Trees = trees ?? Trees,
        Reconfigured = dropReconfigured ? null : Reconfigured,
        Steps = steps ?? Steps,
        Threads = Threads,
        FixedTime = FixedTime,
        ClockStart = ClockStart,
    };

    /// <summary>The case as text a developer can read and replay by hand: the XML of both sides and the calls in C#.</summary>
    public string Describe()
    {
        var text = new StringBuilder();
        for (int r = 0; r < Trees.Count; r++)
        {
            text.AppendLine($"repo{r} (ours):   {Trees[r].ToXml(oracle: false)}");
            text.AppendLine($"repo{r} (oracle): {Trees[r].ToXml(oracle: true)}");
            if (Reconfigured != null)
            {
                text.AppendLine($"repo{r} reconfigured (ours):   {Reconfigured[r].ToXml(oracle: false)}");
                text.AppendLine($"repo{r} reconfigured (oracle): {Reconfigured[r].ToXml(oracle: true)}");
            }
        }

        text.AppendLine($"threads: {string.Join("; ", Threads.Select((t, i) => $"[{i}] {t}"))}; event times {(FixedTime ? "fixed (each call's below)" : "from the clock")}");
        text.Append(ClockStart == 0 ? "" : $"the date rolls' clock (OracleDateTime) starts at {OracleRolls.Show(ClockStart)}{Environment.NewLine}");
        text.AppendLine("calls, one at a time, each on its thread, then the repositories shut down:");
        foreach (StepSpec step in Steps)
        {
            string time = FixedTime && step.Kind == "log" ? $" at {new DateTime(step.Time, DateTimeKind.Utc):O}" : "";
            text.Append($"    [{step.Thread}{time}] ").AppendLine(step.ToCSharp());
        }

        return text.ToString();
    }
}
