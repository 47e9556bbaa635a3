using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>
/// Generates cases from a seed and an index, using only the features switched on; the same seed, index and features
/// give the same case.
/// </summary>
public sealed partial class OracleGenerator
{
    private static readonly string[] Levels = { "Debug", "Info", "Warn", "Error", "Fatal" };
    private static readonly string[] ConfigLevels = { "ALL", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF" };
    private static readonly string[] Cultures = { "de-DE", "fr-CH", "ar-SA", "ja-JP", "tr-TR", "" };
    private static readonly string[] Loggers = { "App", "App.Sub", "Other.Component" };
    private static readonly string[] Keys = { "user", "req", "empty" };
    private static readonly string[] Literals = { "", "order ", " at ", "é", "日本 ", "{{", "}}", "=", "\t", " - ", "x" };
    private static readonly string[] ArgFormats = { "", ":N2", ":X4", ",8", ",-6", ":yyyy", ":0.0", ":D3" };

    private static readonly string[] PlainConverters = { "%message", "%m", "%level", "%-5level", "%logger", "%c{1}", "%thread" };

    private static readonly string[] RichConverters =
    {
        "%message", "%m", "%level", "%-5level", "%p", "%logger", "%c{1}", "%logger{2}", "%thread", "%t", "%exception", "%property{user}",
        "%property{req}", "%property", "%X{user}", "%mdc{req}", "%ndc", "%x", "%property{NDC}", "%20.30message", "%-10.5logger",
        "⟦%date⟧", "⟦%d{HH:mm:ss,fff}⟧", "⟦%utcdate{ISO8601}⟧", "⟦%timestamp⟧", "⟦%r⟧", "⟦%date{ABSOLUTE}⟧", "%appdomain", "%%",
        "%newline", "%n{DOS}", "%property{log4net:HostName}",
    };

    /// <summary>The message of the last call to each repository.</summary>
    public const string WitnessMessage = "case end";

    private static readonly string[] ThreadNames = { "producer-", "Ünï 線程 ", "", " " };
    private static readonly string[] ThreadCultures = { "", "en-US", "de-DE", "fr-CH", "ar-SA", "th-TH", "fa-IR", "tr-TR", "ja-JP", "hi-IN", "ar-EG" };

    private readonly Random _random;
    private bool _unnamed;
    private bool _thai;
    private bool _reconfigure;
    private bool _fixedTime;
    private bool _asciiMinus;
    private readonly OracleFeature _features;
    private bool _endLines;
    private bool _noFrames;

    public OracleGenerator(int seed, int index, OracleFeature features)
    {
        _random = new Random(unchecked((seed * 1_000_003) ^ (index * 7919) ^ (int)features));
        _features = features;
    }

    private bool Has(OracleFeature feature) => (_features & feature) != 0;

    private bool Chance(int percent) => _random.Next(100) < percent;

    private T Pick<T>(IReadOnlyList<T> items) => items[_random.Next(items.Count)];

    public OracleCase Generate(int seed, int index)
    {
        var oracleCase = new OracleCase { Seed = seed, Index = index, Features = _features };
        int repos = Has(OracleFeature.TwoRepositories) && Chance(60) ? 2 : 1;
        bool reconfigure = Has(OracleFeature.Reconfigure) && Chance(60);

        // Our file appenders start a file that ends mid-line on a new line when they open it (a writer killed
        // mid-event leaves one; log4net's appenders write on after it): with a file opened again, every pattern ends
        // its lines.
        _endLines = reconfigure;
        _reconfigure = reconfigure;
        oracleCase.Threads = ThreadSpecs();
        _unnamed = oracleCase.Threads.Any(t => t.Kind != ThreadKind.Named);
        // log4net parses an int setting with the configuring thread's culture: under ar-SA or fa-IR, whose minus sign is
        // not "-", it cannot read maxSizeRollBackups="-1" and drops the appender (ours reads settings invariantly).
        _asciiMinus = new[] { oracleCase.Threads[0].Culture == null ? CultureInfo.CurrentCulture : oracleCase.Threads[0].CultureInfo, CultureInfo.CurrentCulture }
            .All(c => c.NumberFormat.NegativeSign == "-");
        // The process culture too: our workers render under it, log4net under the producer's.
        _thai = CultureInfo.CurrentCulture.Name.StartsWith("th", StringComparison.Ordinal) ||
            oracleCase.Threads.Any(t => (t.Culture ?? "").StartsWith("th", StringComparison.Ordinal));
        oracleCase.FixedTime = _fixedTime = Chance(75);
        for (int r = 0; r < repos; r++)
        {
            oracleCase.Trees.Add(Tree());
        }

        if (reconfigure)
        {
            oracleCase.Reconfigured = oracleCase.Trees.Select(t => Tree(t.Children.Select(c => c.File).ToList())).ToList();
        }

        // Each repository ends with a FATAL "case end" call that its last configuration writes somewhere, so that
        // every case compares at least one line.
        List<TreeSpec> last = oracleCase.Reconfigured ?? oracleCase.Trees;
        for (int r = 0; r < repos; r++)
        {
            for (int attempt = 0; attempt < 8 && !OracleModel.Reaches(last[r], "App", "Fatal", WitnessMessage); attempt++)
            {
                last[r] = Tree(last[r].Children.Select(c => c.File).ToList());
            }

            if (!OracleModel.Reaches(last[r], "App", "Fatal", WitnessMessage))
            {
                last[r].RootLevel = "ALL";
                last[r].BufferingThreshold = last[r].AsyncThreshold = last[r].Children[0].Threshold = null;
                last[r].AsyncFilters.Clear();
                last[r].Children[0].Filters.Clear();
            }
        }

        foreach (TreeSpec tree in oracleCase.Trees.Concat(oracleCase.Reconfigured ?? new List<TreeSpec>()))
        {
            tree.FixedTime = oracleCase.FixedTime;
        }

        // log4net's text for an object it cannot render holds stack frames that depend on what the JIT inlined by
        // then; a size roll would fall at a different event: with a rolling file, no such objects.
        _noFrames = oracleCase.Trees.Concat(oracleCase.Reconfigured ?? new List<TreeSpec>()).Any(t => t.Children.Any(c => c.Rolls || c.Encoding is not (null or "utf-8")));
        int steps = _random.Next(5, 40);
        var reconfigureAt = new HashSet<int>();
        if (oracleCase.Reconfigured != null)
        {
            reconfigureAt.Add(_random.Next(1, steps));
        }

        for (int i = 0; i < steps; i++)
        {
            if (reconfigureAt.Contains(i))
            {
                for (int r = 0; r < repos; r++)
                {
                    oracleCase.Steps.Add(new StepSpec { Kind = "reconfigure", Repo = r });
                }
            }

            if ((Has(OracleFeature.Context) || Has(OracleFeature.MutableContext) || Has(OracleFeature.MutableContextRaw) || Has(OracleFeature.Chains)) && Chance(25))
            {
                oracleCase.Steps.Add(ContextStep());
            }

            if (Has(OracleFeature.Location) && Chance(8))
            {
                oracleCase.Steps.Add(PrincipalStep());
            }

            StepSpec log = LogStep();
            log.Repo = _random.Next(repos);
            log.Thread = _random.Next(oracleCase.Threads.Count);
            oracleCase.Steps.Add(log);
        }

        // Bursts into each repository with a small buffer.
        for (int r = 0; r < repos; r++)
        {
            if (oracleCase.Trees[r].BufferSize != null)
            {
                for (int b = _random.Next(1, 3); b > 0; b--)
                {
                    var burst = new StepSpec { Kind = "burst", Repo = r, Logger = Pick(Loggers), Count = _random.Next(200, 2500), Thread = _random.Next(oracleCase.Threads.Count) };
                    oracleCase.Steps.Insert(_random.Next(oracleCase.Steps.Count + 1), burst);
                }
            }
        }

        for (int r = 0; r < repos; r++)
        {
            oracleCase.Steps.Add(new StepSpec { Repo = r, Logger = "App", Level = "Fatal", Method = "Plain", Message = ArgSpec.Of(WitnessMessage) });
        }

        OracleConcurrent.Add(oracleCase, _random, Has(OracleFeature.Threads));
        // Context changes on a thread that keeps its context (not the pool's); the times of the calls go forward by
        // up to seconds, now and then by hours or days.
        var ownContext = Enumerable.Range(0, oracleCase.Threads.Count).Where(t => oracleCase.Threads[t].Kind != ThreadKind.Pool).ToList();
        long time = new DateTime(2001 + _random.Next(38), 1 + _random.Next(12), 1 + _random.Next(28), 0, 0, 0, DateTimeKind.Utc).Ticks + _random.NextInt64(TimeSpan.TicksPerDay);
        foreach (StepSpec step in oracleCase.Steps)
        {
            step.Thread = step.Kind == "context" ? Pick(ownContext) : step.Thread; // reconfigurations on the first
            time += Chance(5) ? _random.NextInt64(TimeSpan.TicksPerDay * 3) : _random.NextInt64(TimeSpan.TicksPerSecond * 3);
            step.Time = time;
        }

        OracleRolls.Generate(oracleCase, _random);
        return oracleCase;
    }

    private List<ThreadSpec> ThreadSpecs()
    {
        int count = Has(OracleFeature.Threads) ? _random.Next(1, 5) : 1;
        var threads = new List<ThreadSpec>();
        for (int t = 0; t < count; t++)
        {
            // The first is named: reconfigurations and context changes need a thread of their own.
            ThreadKind kind = t == 0 ? ThreadKind.Named : (ThreadKind)_random.Next(3);
            threads.Add(new ThreadSpec
            {
                Kind = kind,
                Name = t == 0 ? "oracle-case" : Pick(ThreadNames) + t.ToString(CultureInfo.InvariantCulture),
                Culture = Has(OracleFeature.Cultures) ? Pick(ThreadCultures) : null,
            });
        }

        return threads;
    }

    private TreeSpec Tree(List<string>? files = null)
    {
        var tree = new TreeSpec { AsyncKind = Pick(Support.AsyncAppenderKind.TypeNames) };
        if (Has(OracleFeature.Buffering) && Chance(50))
        {
            tree.BufferingSize = Pick(new[] { 1, 2, 5, 16 });
            tree.BufferingThreshold = Has(OracleFeature.Thresholds) && Chance(30) ? Pick(ConfigLevels) : null;
        }

        if (Has(OracleFeature.Children) && Chance(30))
        {
            tree.Fix = Pick(new[] { "Auto", "All", "Partial" });
        }

        if (Has(OracleFeature.Thresholds))
        {
            tree.AsyncThreshold = Chance(30) ? Pick(ConfigLevels) : null;
            tree.RootLevel = Chance(40) ? Pick(ConfigLevels.Take(4).ToArray()) : "ALL";
            tree.SubLoggerLevel = Chance(30) ? Pick(ConfigLevels) : null;
        }

        if (Has(OracleFeature.Filters) && Chance(60))
        {
            tree.AsyncFilters = Filters();
        }

        // A small buffer, only where the files cannot roll or be opened again (under Discard the lines differ).
        bool small = Has(OracleFeature.Long) && files == null && !_reconfigure && Chance(60);
        if (small)
        {
            tree.BufferSize = Pick(new[] { 16, 32, 64, 128 });
            tree.Overflow = Pick(tree.AsyncKind == "DisruptorAsyncAppender" ? new[] { "Block", "Discard" } : new[] { "Block", "Discard", "Grow" });
        }

        if (Has(OracleFeature.Chains))
        {
            tree.NestedKind = Chance(30) ? Pick(Support.AsyncAppenderKind.TypeNames) : null;
            // Not with arguments that log: ours renders them again on the worker, whose calls reach the sibling
            // (a known difference, reported apart).
            tree.Sibling = !Has(OracleFeature.Reentrant) && Chance(40);
            tree.Additivity = !Chance(40);
            tree.SiblingPattern = ThreadMarks("S %level %logger [%thread] %property{user} " + (Has(OracleFeature.Impure) ? "" : "%message") + "%newline");
            // The same exclusions as the sibling's: each async appender captures the message itself.
            tree.SubAsync = !tree.Sibling && !Has(OracleFeature.Reentrant) && Chance(50);
            tree.SubPattern = ThreadMarks("U %level %logger [%thread] " + (Has(OracleFeature.Impure) ? "" : "%message") + "%newline");
        }

        int children = Has(OracleFeature.Children) && Chance(50) ? 2 : 1;
        for (int i = 0; i < children; i++)
        {
            // Each log4net appender renders a message object again where ours capture it once: with an impure
            // argument only one child writes the message.
            // A StringMatchFilter renders the message too, so it stays off such a child.
            bool withMessage = i == 0 || !Has(OracleFeature.Impure);
            tree.Children.Add(Child(files != null && i < files.Count && Chance(70) ? files[i] : (i == 0 ? "a.log" : "b.log"), withMessage));
        }

        foreach (ChildSpec child in tree.Children)
        {
            FileOptions(child, tree.Overflow != "Discard");
        }

        // An explicit fix without the caller's location or identity is warned about, and they reach the child empty
        // (docs/behaviours.md, 9): the oracle's pattern leaves them out.
        if (tree.Fix != null && tree.Children.Any(c => OracleLocation.Reads(c.Pattern)))
        {
            tree.Fix = LocationFix(tree);
        }

        if (tree.BufferSize != null)
        {
            // log4net's RollingFileAppender checks the size once per batch it is handed (ours hands it batches, the
            // oracle single events), so where a burst rolls depends on the batches: no roll behind a small buffer.
            foreach (ChildSpec child in tree.Children)
            {
                child.Kind = child.Kind == ChildKind.RollingBuffered ? ChildKind.Buffered : child.Kind == ChildKind.Log4netRolling ? ChildKind.Log4netFile : child.Kind;
            }
        }

        if (tree.Overflow == "Discard")
        {
            // Compared line by line, by level: one line per event, the level first; no roll.
            for (int c = 0; c < tree.Children.Count; c++)
            {
                ChildSpec child = tree.Children[c];
                child.Pattern = "%-5level %logger " + (c == 0 || !Has(OracleFeature.Impure) ? "%message" : "") + "%newline";
                child.Kind = child.Kind == ChildKind.RollingBuffered ? ChildKind.Buffered : child.Kind == ChildKind.Log4netRolling ? ChildKind.Log4netFile : child.Kind;
            }
        }

        return tree;
    }

    private ChildSpec Child(string file, bool withMessage)
    {
        var kinds = new List<ChildKind> { ChildKind.Buffered };
        if (Has(OracleFeature.Rolling))
        {
            kinds.Add(ChildKind.RollingBuffered);
        }

        if (Has(OracleFeature.Log4netChildren))
        {
            // No log4net RollingFileAppender as a child: it checks its size once per batch it is handed (ours hands it
            // batches whose sizes depend on timing, the oracle single events), so where it rolls is not determined.
            kinds.Add(ChildKind.Log4netFile);
        }

        var child = new ChildSpec
        {
            Kind = Pick(kinds),
            File = file,
            Pattern = WithLocation(Pattern(withMessage)),
            Append = !Chance(10),
            MaxSize = Pick(new[] { "1KB", "3KB", "10KB", "1MB" }),
            Backups = _random.Next(_asciiMinus ? -1 : 0, 4),
        };
        if (Has(OracleFeature.Thresholds) && Chance(30))
        {
            child.Threshold = Pick(ConfigLevels);
        }

        if (Has(OracleFeature.Filters) && Chance(40))
        {
            child.Filters = Filters(stringMatch: withMessage);
        }

        return child;
    }

    private string Pattern(bool withMessage)
    {
        if (!Has(OracleFeature.Patterns))
        {
            string message = withMessage ? "%message" : "";
            return ThreadMarks(Chance(50) ? message + "%newline" : "%-5level %logger [%thread] " + message + "%newline");
        }

        // At most one message converter: log4net renders a message object again for each one (so an impure argument
        // reads differently in each), where the async appender captures it once, at the call.
        var pattern = new StringBuilder();
        bool hasMessage = !withMessage;
        int parts = _random.Next(1, 6);
        for (int i = 0; i < parts; i++)
        {
            string converter = Pick(RichConverters);
            bool isMessage = converter.EndsWith("message", StringComparison.Ordinal) || converter == "%m";
            if (!(isMessage && hasMessage))
            {
                pattern.Append(converter).Append(Pick(new[] { " ", " | ", "[", "]", "", ": " }));
                hasMessage |= isMessage;
            }
        }

        if (!hasMessage && Chance(60))
        {
            pattern.Append("%message");
        }

        if (Chance(30))
        {
            pattern.Append(" %exception");
        }

        return ThreadMarks(pattern.Append(_endLines || Chance(90) ? "%newline" : "").ToString());
    }

    /// <summary>
    /// With a thread without a name (or a pool thread, unnamed in some runtimes), the thread converters between ⟪ and ⟫,
    /// where its id is mapped.
    /// </summary>
    private string ThreadMarks(string pattern)
    {
        if (_thai)
        {
            // log4net 3.5.0's %logger{n} looks for the dots with a culture-sensitive LastIndexOf: under th-TH, whose
            // collation ignores punctuation, it throws, and the FileAppender writes half a line (ours writes it whole).
            pattern = System.Text.RegularExpressions.Regex.Replace(pattern, "%(c|logger)\\{[0-9]+\\}", "%logger");
        }

        return _unnamed ? System.Text.RegularExpressions.Regex.Replace(pattern, "%(thread|t)(?![a-zA-Z])", "⟪%thread⟫") : pattern;
    }

    private StepSpec ContextStep()
    {
        var step = new StepSpec { Kind = "context", Key = Pick(Keys) };
        int op = _random.Next(Has(OracleFeature.Context) ? 5 : 1);
        step.ContextOp = Has(OracleFeature.Chains) && Chance(30) ? "global" : new[] { "set", "remove", "logical", "push", "pop" }[op];
        if (step.ContextOp is "set" or "logical" or "push" or "global")
        {
            var mutable = new List<string>();
            if (Has(OracleFeature.MutableContext))
            {
                mutable.Add("fixingBuilder");
            }

            if (Has(OracleFeature.MutableContextRaw))
            {
                mutable.Add("builder");
            }

            step.ContextValue = mutable.Count > 0 && step.ContextOp != "push" && Chance(50)
                ? new ArgSpec { Kind = Pick(mutable), Text = "sb-" + _random.Next(100) }
                : ArgSpec.Of(Chance(10) ? null : Text(12));
            if (step.ContextOp == "set" && Has(OracleFeature.Context) && Chance(15))
            {
                step.ContextValue = ArgSpec.Of(_random.Next(1000));
            }
        }

        return step;
    }

    private StepSpec LogStep()
    {
        var step = new StepSpec
        {
            Logger = Has(OracleFeature.Thresholds) || Has(OracleFeature.Patterns) || Has(OracleFeature.Chains) ? Pick(Loggers) : "App",
            Level = Has(OracleFeature.Methods) || Has(OracleFeature.Thresholds) || Has(OracleFeature.Filters) ? Pick(Levels) : "Info",
        };
        var methods = new List<string> { "Plain", "Format" };
        if (Has(OracleFeature.Methods))
        {
            methods.AddRange(new[] { "PlainEx", "Format1", "Format2", "Format3" });
        }

        if (Has(OracleFeature.Exceptions))
        {
            methods.Add("PlainEx");
        }

        if (Has(OracleFeature.Providers))
        {
            methods.Add("FormatProvider");
        }

        step.Method = Pick(methods);
        if (step.Method is "Plain" or "PlainEx")
        {
            step.Message = Chance(70) ? ArgSpec.Of(Text(60)) : Arg();
            if (_noFrames && step.Message.Kind == "throws")
            {
                step.Message = ArgSpec.Of(Text(60));
            }

            if (step.Method == "PlainEx")
            {
                step.Exception = Has(OracleFeature.Exceptions) ? (Chance(85) ? Pick(ExceptionMaker.Kinds) : null) : (Chance(50) ? "plain" : null);
                if (_noFrames && step.Exception == "throwingToString")
                {
                    step.Exception = "plain";
                }

            }

            return step;
        }

        int count = step.Method switch { "Format1" => 1, "Format2" => 2, "Format3" => 3, _ => _random.Next(0, 5) };
        for (int i = 0; i < count; i++)
        {
            step.Args.Add(Arg());
        }

        var format = new StringBuilder();
        int items = _random.Next(1, 5);
        for (int i = 0; i < items; i++)
        {
            format.Append(Pick(Literals));
            if (count > 0 || Chance(5))
            {
                int index = Chance(3) ? count : _random.Next(Math.Max(count, 1));
                format.Append('{').Append(index).Append(Pick(ArgFormats)).Append('}');
            }
        }

        if (Chance(2))
        {
            format.Append("{0"); // unbalanced: log4net writes its error text
        }

        if (Has(OracleFeature.Huge) && Chance(10))
        {
            format.Append(Text(0, huge: true));
        }

        step.Format = format.ToString();
        if (step.Method == "FormatProvider")
        {
            step.Culture = Chance(15) ? null : Pick(Cultures);
        }

        return step;
    }
}
