using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Threading;
using log4net;
using log4net.Util;
using LowLatencyLog.Tests.Support;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>What a case gave: null difference when both sides agree, and how many lines were compared.</summary>
internal sealed class OracleResult
{
    public string? Difference;

    /// <summary>The kind of difference (and the file), so that the shrinker keeps only candidates failing the same way.</summary>
    public string Kind = "";

    public int Lines;

    public static OracleResult Failed(string kind, string difference) => new OracleResult { Kind = kind, Difference = difference };
}

/// <summary>
/// Runs a case twice, on fresh threads of the same names each time: through the oracle (log4net's own synchronous
/// appenders) and through ours, each in its own repositories and folder, then compares the files byte for byte and
/// log4net's internal warnings and errors.
/// </summary>
internal static class OracleRunner
{
    /// <summary>How long one side may take for its calls and shutdown before the case counts as hung.</summary>
    private static readonly TimeSpan HangLimit = TimeSpan.FromSeconds(60);

    /// <summary>Null when both sides left the same files with the same bytes; otherwise what differs.</summary>
    public static string? Check(OracleCase oracleCase) => Run(oracleCase).Difference;

    public static OracleResult Run(OracleCase oracleCase)
    {
        Side oracle = null!, ours = null!;
        OracleConcurrent.Prepare(oracleCase);

        // The internal log is still recorded (LogReceived), but not written to the console: a wide run would write
        // gigabytes of warnings nobody reads.
        LogLog.ExecuteWithoutEmittingInternalMessages(() =>
        {
            oracle = RunSide(oracleCase, oracle: true);
            ours = RunSide(oracleCase, oracle: false);
        });
        if (oracle.Hung)
        {
            return OracleResult.Failed("hung-oracle", "the oracle (log4net alone) did not finish: the generator made a case log4net cannot run");
        }

        if (ours.Hung)
        {
            return OracleResult.Failed("hung-ours", $"ours did not finish its calls and shutdown within {HangLimit.TotalSeconds} s (a log call or Close hangs)");
        }

        if (!ours.Errors.SequenceEqual(oracle.Errors))
        {
            return OracleResult.Failed("errors", "exceptions reached the application: ours [" + string.Join("; ", ours.Errors) + "], oracle [" + string.Join("; ", oracle.Errors) + "]");
        }

        var result = new OracleResult();
        bool lost = false;
        var names = oracle.Files.Keys.Union(ours.Files.Keys).OrderBy(n => n, StringComparer.Ordinal).ToList();
        foreach (string name in names)
        {
            bool inOracle = oracle.Files.TryGetValue(name, out byte[]? expected);
            bool inOurs = ours.Files.TryGetValue(name, out byte[]? actual);
            if (!inOracle || !inOurs)
            {
                return OracleResult.Failed("only:" + name, $"{name}: only in {(inOracle ? "the oracle's" : "our")} folder; oracle files [{string.Join(", ", oracle.Files.Keys)}], ours [{string.Join(", ", ours.Files.Keys)}]"
                    + InternalErrors(oracle, ours));
            }

            int repo = name[4] - '0'; // "repo0/..."
            int lines = OracleCompare.CountLines(expected!);
            string? difference;
            if (oracle.Trace != null)
            {
                bool discard = oracleCase.Trees[repo].Overflow == "Discard";
                difference = OracleInterleaving.Difference(expected!, actual!, oracle.Trace.Labels(name), s => s < oracleCase.Steps.Count && oracleCase.Steps[s].Kind == "concurrent", discard, out lines, out bool missing);
                lost |= missing;
            }
            else if (oracleCase.Trees[repo].Overflow == "Discard")
            {
                difference = OracleLong.LossyDifference(expected!, actual!, out lines, out bool missing);
                lost |= missing;
            }
            else
            {
                difference = OracleCompare.Difference(expected!, actual!);
            }

            if (difference != null)
            {
                return OracleResult.Failed("file:" + name, $"{name}: {difference}" + InternalErrors(oracle, ours));
            }

            result.Lines += lines;
        }

        if (oracle.Trace != null && (OracleInterleaving.OrderDifference(oracleCase, ours.Files, "ours:") ?? OracleInterleaving.OrderDifference(oracleCase, oracle.Files, "the oracle's:")) is { } order)
        {
            return OracleResult.Failed("order", order);
        }

        if (lost && !ours.Internal.Any(m => m.Contains(OracleLong.DiscardReport, StringComparison.Ordinal)))
        {
            return OracleResult.Failed("internal", "under overflow=Discard, lines are missing and log4net's internal log has no report of discards");
        }

        string? internalDifference = InternalDifference(oracle.Internal, ours.Internal);
        if (internalDifference != null)
        {
            return OracleResult.Failed("internal", internalDifference);
        }

        return result;
    }

    /// <summary>
    /// log4net's internal warnings and errors: those the oracle wrote (a format it could not render, a file it could
    /// not open) must be written by ours too, and ours may add only a report of a message, argument or exception that
    /// could not be rendered. Ours renders each once, at the call (docs/behaviours.md, 7 and 13): also for an event
    /// that a threshold or filter of a child drops later and log4net never renders, and once where log4net renders
    /// (and reports) again for each child. So the messages compare as sets.
    /// </summary>
    private static string? InternalDifference(List<string> oracle, List<string> ours)
    {
        var ourKeys = new HashSet<string>(ours.Select(OracleCompare.InternalKey), StringComparer.Ordinal);
        var oracleKeys = new HashSet<string>(oracle.Select(OracleCompare.InternalKey), StringComparer.Ordinal);
        var missing = oracleKeys.Where(k => !ourKeys.Contains(k)).ToList();
        var extra = new List<string>();
        foreach (string message in ours.Distinct())
        {
            if (!oracleKeys.Contains(OracleCompare.InternalKey(message)) && !OursOnly(message))
            {
                extra.Add(message);
            }
        }

        if (missing.Count == 0 && extra.Count == 0)
        {
            return null;
        }

        return "log4net's internal log differs: only the oracle's [" + string.Join(" | ", missing.Take(3).Select(m => Clip(m, 300)))
            + "], only ours [" + string.Join(" | ", extra.Take(3).Select(m => Clip(m, 300))) + "]";
    }

    /// <summary>
    /// Reports only ours writes: rendering at the call (above), an async appender left without a child (a child
    /// log4net could not create) is an error at activation (docs/behaviours.md, 11), discards (5), location read at the
    /// call and a fix that leaves out what a child writes (9).
    /// </summary>
    private static bool OursOnly(string message) =>
        message.Contains("Exception while rendering ", StringComparison.Ordinal) || message.Contains("has no appender to forward to", StringComparison.Ordinal)
        || message.Contains(OracleLong.DiscardReport, StringComparison.Ordinal) || message.Contains("writes the caller's location", StringComparison.Ordinal)
        || message.Contains("those fields reach it empty", StringComparison.Ordinal); // a fix without location or identity (9)

    private static string InternalErrors(Side oracle, Side ours) =>
        (oracle.Internal.Count == 0 ? "" : Environment.NewLine + "the oracle's internal log: " + string.Join(" | ", oracle.Internal.Take(3).Select(e => Clip(e, 500))))
        + (ours.Internal.Count == 0 ? "" : Environment.NewLine + "our internal log: " + string.Join(" | ", ours.Internal.Take(3).Select(e => Clip(e, 500))));

    private sealed class Side
    {
        public readonly Dictionary<string, byte[]> Files = new Dictionary<string, byte[]>();
        public readonly List<string> Errors = new List<string>();
        public bool Hung;
        public StepTrace? Trace;
        public List<string> Internal = new List<string>();
    }

    private static Side RunSide(OracleCase oracleCase, bool oracle)
    {
        var side = new Side();
        var internalLog = new List<string>();
        void OnInternal(object? sender, LogReceivedEventArgs e)
        {
            if (!e.LogLog.Prefix.Contains("DEBUG", StringComparison.Ordinal))
            {
                lock (internalLog)
                {
                    internalLog.Add(e.LogLog.Prefix + e.LogLog.Message + Describe(e.LogLog.Exception));
                }
            }
        }

        LogLog.LogReceived += OnInternal;
        try
        {
            OracleClockRun.Start(oracleCase);
            var harnesses = oracleCase.Trees.Select(t => new Log4netHarness(t.ToXml(oracle))).ToList();
            var clock = new OracleClockRun(oracleCase, harnesses);
            var loggers = new Dictionary<(int, string), ILog>();
            var context = new RunContext((repo, name) =>
            {
                if (!loggers.TryGetValue((repo, name), out ILog? log))
                {
                    log = loggers[(repo, name)] = harnesses[repo].Logger(name);
                }

                return log;
            });

            void Reconfigure(int repo) => clock.Reconfigure(repo, oracleCase.Reconfigured![repo].ToXml(oracle));

            using var producers = new Producers(oracleCase.Threads);
            StepTrace? trace = side.Trace = oracle && OracleConcurrent.Applies(oracleCase) ? new StepTrace(harnesses.Select(h => h.Directory).ToList()) : null;
            var driver = new Thread(
                () =>
                {
                    for (int i = 0; i < oracleCase.Steps.Count; i++)
                    {
                        StepSpec step = oracleCase.Steps[i];
                        try
                        {
                            if (step.Kind == "clock")
                            {
                                clock.Advance(step);
                                continue;
                            }

                            if (step.Kind == "concurrent")
                            {
                                OracleConcurrent.Run(producers, step, context, oracleCase.FixedTime);
                            }
                            else
                            {
                                producers.Run(step.Thread, oracleCase.FixedTime ? step.Time : 0, () => step.Run(context, Reconfigure));
                            }
                        }
                        catch (Exception exception)
                        {
                            side.Errors.Add($"step {i}: {exception.GetType().Name}: {Clip(exception.Message, 200)}");
                        }

                        trace?.After();
                    }

                    foreach (Log4netHarness harness in harnesses)
                    {
                        harness.Shutdown();
                    }

                    trace?.After();
                }) { Name = "oracle-driver", IsBackground = true };
            driver.Start();
            if (!driver.Join(HangLimit))
            {
                side.Hung = true;
                return side; // the hung thread keeps its repositories; nothing else can be done for them
            }

            // log4net names a thread without a name by its managed id, which differs between the runs: the patterns
            // of such cases write the thread between ⟪ and ⟫, where the id becomes the thread's index.
            var unnamed = new Dictionary<string, string>(StringComparer.Ordinal);
            for (int t = 0; t < oracleCase.Threads.Count; t++)
            {
                if (oracleCase.Threads[t].Kind == ThreadKind.Unnamed)
                {
                    unnamed[producers.ManagedIds[t].ToString(CultureInfo.InvariantCulture)] = "unnamed-" + t.ToString(CultureInfo.InvariantCulture);
                }
            }

            for (int r = 0; r < harnesses.Count; r++)
            {
                foreach (string path in Directory.GetFiles(harnesses[r].Directory, "*", SearchOption.AllDirectories))
                {
                    byte[] raw = File.ReadAllBytes(path);
                    string name = $"repo{r}/{Path.GetRelativePath(harnesses[r].Directory, path)}";
                    trace?.Read(name, path, raw);
                    side.Files[name] = OracleCompare.Normalize(OracleCompare.MapThreads(raw, unnamed), maskDates: !oracleCase.FixedTime);
                }

                harnesses[r].Dispose();
            }
        }
        finally
        {
            foreach (string key in new[] { "user", "req", "empty" })
            {
                GlobalContext.Properties.Remove(key); // process-wide: the other run must not see it
            }

            LogLog.LogReceived -= OnInternal;
        }

        lock (internalLog)
        {
            side.Internal = internalLog.ToList();
        }

        return side;
    }

    private static string Describe(Exception? exception) =>
        exception == null ? "" : " " + exception.GetType().Name + ": " + exception.Message + (exception.InnerException is { } inner ? " (" + Describe(inner).Trim() + " at " + Clip(inner.StackTrace ?? "", 300) + ")" : "");

    internal static string Clip(string text, int max) => text.Length <= max ? text : text.Substring(0, max) + "…";
}
