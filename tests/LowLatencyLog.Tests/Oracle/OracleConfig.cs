using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Security;
using System.Text;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>
/// What the generator may put in a case. Each switch adds one kind of configuration or call, so a failing feature shows
/// alone; <see cref="None"/> is the baseline (one repository, one async appender, one of our file appenders, plain
/// strings and numbers).
/// </summary>
[Flags]
public enum OracleFeature
{
    None = 0,

    /// <summary>Every <c>ILog</c> method and <c>*Format</c> overload (baseline: <c>Info</c> and <c>InfoFormat</c>).</summary>
    Methods = 1 << 0,

    /// <summary><c>*Format</c> with an <c>IFormatProvider</c> (cultures, null).</summary>
    Providers = 1 << 1,

    /// <summary>An argument or message whose <c>ToString()</c> or <c>IFormattable.ToString</c> logs (depth capped at 3).</summary>
    Reentrant = 1 << 2,

    /// <summary>A <c>StringBuilder</c> argument or message changed right after the call.</summary>
    Mutated = 1 << 3,

    /// <summary>An argument whose <c>ToString()</c> returns a new value each time (rendering twice shows).</summary>
    Impure = 1 << 4,

    /// <summary>An argument or message whose <c>ToString()</c> throws, or returns null.</summary>
    Throwing = 1 << 5,

    /// <summary>Messages and arguments of tens to hundreds of thousands of characters.</summary>
    Huge = 1 << 6,

    /// <summary>Non-BMP characters, lone surrogates, combining marks, control characters.</summary>
    NonBmp = 1 << 7,

    /// <summary>Exceptions: thrown, nested, aggregate, and ones whose <c>ToString()</c> throws or returns null.</summary>
    Exceptions = 1 << 8,

    /// <summary>Thread and logical-thread context properties and the NDC stack changing between calls.</summary>
    Context = 1 << 9,

    /// <summary>
    /// A property value that implements log4net's <c>IFixingRequired</c> (its fixed object is the text at the call),
    /// changed right after the call.
    /// </summary>
    MutableContext = 1 << 10,

    /// <summary>log4net's <c>BufferingForwardingAppender</c> in front of the async appender.</summary>
    Buffering = 1 << 11,

    /// <summary><c>LevelRangeFilter</c>, <c>StringMatchFilter</c>, <c>DenyAllFilter</c> on the async appender and its children.</summary>
    Filters = 1 << 12,

    /// <summary>Thresholds on the appenders and levels on the root and on a logger.</summary>
    Thresholds = 1 << 13,

    /// <summary>Two repositories, each with its own configuration, calls alternating between them.</summary>
    TwoRepositories = 1 << 14,

    /// <summary>The repository configured again, with another generated configuration, in the middle of the calls.</summary>
    Reconfigure = 1 << 15,

    /// <summary>log4net's own <c>FileAppender</c> and <c>RollingFileAppender</c> behind the async appender.</summary>
    Log4netChildren = 1 << 16,

    /// <summary>
    /// <c>RollingBufferedFileAppender</c> (and log4net's <c>RollingFileAppender</c>) rolling by size, by date, or both,
    /// on a clock the case moves (<see cref="OracleRolls"/>).
    /// </summary>
    Rolling = 1 << 17,

    /// <summary>Patterns with every usual converter: date, timestamp, properties, NDC, thread, exception, padding.</summary>
    Patterns = 1 << 18,

    /// <summary>Two children behind one async appender, and a <c>fix</c> setting other than the default.</summary>
    Children = 1 << 19,

    /// <summary>
    /// Two to four producer threads (named, unnamed, thread-pool), the calls alternating between them, one at a time;
    /// and steps where 2 to 4 of them log bursts at the same time (<see cref="OracleConcurrent"/>).
    /// </summary>
    Threads = 1 << 20,

    /// <summary>
    /// Each producer thread with its own culture (among them ones with other digits, signs and calendars: ar-SA,
    /// th-TH, fa-IR), set as <c>CurrentCulture</c> and <c>CurrentUICulture</c>.
    /// </summary>
    Cultures = 1 << 21,

    /// <summary>
    /// A small async buffer (16 to 128 slots) under each overflow mode (Block, Discard, Grow) and bursts of hundreds to
    /// thousands of calls, so that the buffer wraps and fills. Under Discard what ours wrote must be in the oracle's
    /// order, with every warning and error, and a report of the discards.
    /// </summary>
    Long = 1 << 22,

    /// <summary>
    /// Chains as applications build them: a second async appender behind the first, a synchronous sibling on a logger
    /// (with additivity on or off), GlobalContext properties.
    /// </summary>
    Chains = 1 << 23,

    /// <summary>File settings: encodings (with a byte-order mark: utf-8, utf-16, ...), header and footer, locking models.</summary>
    FileOptions = 1 << 24,

    /// <summary>
    /// The caller's location in patterns (<c>%location %class %method %file %line %stacktrace %stacktracedetail</c>)
    /// and the thread's identity, a principal set between calls; with <see cref="Children"/>, <c>fix</c> settings that
    /// take them or leave them out.
    /// </summary>
    Location = 1 << 25,

    All = (1 << 26) - 1,

    /// <summary>
    /// A plain <c>StringBuilder</c> as a property value, changed right after the call. Not in <see cref="All"/>: a
    /// property value is kept as a reference, as log4net's own <c>Fix</c> keeps it, so a child rendering it later
    /// writes the changed text where a synchronous appender wrote the text at the call (a difference by design).
    /// </summary>
    MutableContextRaw = 1 << 30,
}

/// <summary>The four child appenders; ours are mirrored by log4net's own in the oracle.</summary>
public enum ChildKind
{
    Buffered,
    RollingBuffered,
    Log4netFile,
    Log4netRolling,
}

/// <summary>One filter of a chain, as log4net's XML configures it.</summary>
public sealed class FilterSpec
{
    public string Kind = "LevelRange"; // LevelRange, StringMatch, DenyAll
    public string? Min;
    public string? Max;
    public string? Match;
    public bool Accept;

    public string ToXml()
    {
        return Kind switch
        {
            "LevelRange" => "<filter type=\"log4net.Filter.LevelRangeFilter\">"
                + (Min == null ? "" : $"<levelMin value=\"{Min}\" />") + (Max == null ? "" : $"<levelMax value=\"{Max}\" />")
                + $"<acceptOnMatch value=\"{(Accept ? "true" : "false")}\" /></filter>",
            "StringMatch" => $"<filter type=\"log4net.Filter.StringMatchFilter\"><stringToMatch value=\"{Escape(Match!)}\" />"
                + $"<acceptOnMatch value=\"{(Accept ? "true" : "false")}\" /></filter>",
            _ => "<filter type=\"log4net.Filter.DenyAllFilter\" />",
        };
    }

    internal static string Escape(string text) => SecurityElement.Escape(text)!;
}

/// <summary>A child of the async appender: a file appender with its layout, threshold and filters.</summary>
public sealed class ChildSpec
{
    public ChildKind Kind;
    public string File = "a.log";
    public string Pattern = "%message%newline";
    public string? Threshold;
    public List<FilterSpec> Filters = new List<FilterSpec>();
    public bool Append = true;
    public string MaxSize = "4KB";
    public int Backups = 2;

    public string? Encoding;
    public string? Header; // XML-escaped text
    public string? Footer;
    public string? Locking;

    /// <summary>A rolling child's date roll and file names; null: by size, static name, backups counted down.</summary>
    public RollSpec? Roll;

    public bool Rolls => Kind is ChildKind.RollingBuffered or ChildKind.Log4netRolling;

    public string ToXml(string name, bool oracle, string? fix = null, string mark = "")
    {
        string type = Kind switch
        {
            ChildKind.Buffered when !oracle => "LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog",
            ChildKind.RollingBuffered when !oracle => "LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog",
            ChildKind.Buffered or ChildKind.Log4netFile => "log4net.Appender.FileAppender",
            _ => "log4net.Appender.RollingFileAppender",
        };
        var xml = new StringBuilder();
        xml.Append($"<appender name=\"{name}\" type=\"{type}\">");
        xml.Append($"<file value=\"{{dir}}{File}\" /><appendToFile value=\"{(Append ? "true" : "false")}\" />");
        xml.Append(Encoding == null ? "" : $"<encoding value=\"{Encoding}\" />");
        xml.Append(Locking == null ? "" : $"<lockingModel type=\"log4net.Appender.FileAppender+{Locking}\" />");
        if (Rolls)
        {
            xml.Append($"<rollingStyle value=\"{Roll?.Style ?? "Size"}\" /><maximumFileSize value=\"{MaxSize}\" /><maxSizeRollBackups value=\"{Backups.ToString(CultureInfo.InvariantCulture)}\" />");
            xml.Append(Roll?.ToXml() ?? "<staticLogFileName value=\"true\" />");
        }

        if (Threshold != null)
        {
            xml.Append($"<threshold value=\"{Threshold}\" />");
        }

        foreach (FilterSpec filter in Filters)
        {
            xml.Append(filter.ToXml());
        }

        xml.Append($"<layout type=\"log4net.Layout.PatternLayout\"><conversionPattern value=\"{FilterSpec.Escape(mark + (oracle ? OracleLocation.Expected(Pattern, fix) : Pattern))}\" />");
        xml.Append(Header == null ? "" : $"<header value=\"{Header}\" />").Append(Footer == null ? "" : $"<footer value=\"{Footer}\" />");
        xml.Append("</layout>");
        xml.Append("</appender>");
        return xml.ToString();
    }

    public ChildSpec Clone()
    {
        var copy = (ChildSpec)MemberwiseClone();
        copy.Filters = Filters.ToList();
        return copy;
    }
}

/// <summary>
/// One repository's configuration: [BufferingForwardingAppender →] async appender (threshold, filters) → children.
/// The oracle's is the same tree of log4net's own synchronous appenders: <c>ForwardingAppender</c> for the async
/// appender, <c>FileAppender</c> and <c>RollingFileAppender</c> (immediate flush) for ours.
/// </summary>
public sealed class TreeSpec
{
    public string AsyncKind = "BoundedQueueAsyncAppender";
    public string? Fix;
    public int? BufferingSize;
    public string? BufferingThreshold;
    public string? AsyncThreshold;
    public List<FilterSpec> AsyncFilters = new List<FilterSpec>();
    public string RootLevel = "ALL";
    public string? SubLoggerLevel;
    public List<ChildSpec> Children = new List<ChildSpec>();

    /// <summary>A second async appender (this type; log4net's ForwardingAppender in the oracle) between the first and the children.</summary>
    public string? NestedKind;

    /// <summary>A synchronous log4net FileAppender on logger App.Sub (s.log), with that additivity, and its pattern.</summary>
    public bool Sibling;

    /// <summary>A second async appender of the same kind on logger App.Sub (ForwardingAppender on log4net's side), into
    /// a file appender of its own (sub.log): with additivity on, App.Sub's events reach two async appenders in log4net's
    /// order; off, only this one (the intercepted calls' route, SPEC 22).</summary>
    public bool SubAsync;

    public string SubPattern = "U %level %logger %message%newline";
    public bool Additivity = true;
    public string SiblingPattern = "S %level %logger %message%newline";

    /// <summary>Ours only: the async appender's <c>bufferSize</c> and <c>overflow</c> (null: the defaults).</summary>
    public int? BufferSize;
    public string? Overflow;

    /// <summary>A <see cref="FixedTimeFilter"/> first on the first appender.</summary>
    public bool FixedTime;

    /// <summary>Written first by every layout (<see cref="OracleConcurrent.Mark"/>); kept out of the patterns, which the shrinker simplifies.</summary>
    public string Mark = "";

    // The assembly's own name: the oracle runs in the intercepted test assembly too.
    private static readonly string FixedTimeXml =
        $"<filter type=\"{typeof(FixedTimeFilter).FullName}, {typeof(FixedTimeFilter).Assembly.GetName().Name}\" />";

    public string ToXml(bool oracle)
    {
        var xml = new StringBuilder("<log4net>");
        string top = "async";
        if (BufferingSize != null)
        {
            top = "buffer";
            xml.Append("<appender name=\"buffer\" type=\"log4net.Appender.BufferingForwardingAppender\">");
            xml.Append(FixedTime ? FixedTimeXml : "");
            xml.Append($"<bufferSize value=\"{BufferingSize.Value.ToString(CultureInfo.InvariantCulture)}\" /><lossy value=\"false\" />");
            if (BufferingThreshold != null)
            {
                xml.Append($"<threshold value=\"{BufferingThreshold}\" />");
            }

            xml.Append("<appender-ref ref=\"async\" /></appender>");
        }

        string type = oracle ? "log4net.Appender.ForwardingAppender" : $"LowLatencyLog.Appender.{AsyncKind}, LowLatencyLog";
        xml.Append($"<appender name=\"async\" type=\"{type}\">");
        if (!oracle && BufferSize != null)
        {
            xml.Append($"<bufferSize value=\"{BufferSize.Value.ToString(CultureInfo.InvariantCulture)}\" /><overflow value=\"{Overflow}\" />");
        }

        if (!oracle && Fix != null)
        {
            xml.Append($"<fix value=\"{Fix}\" />");
        }

        if (AsyncThreshold != null)
        {
            xml.Append($"<threshold value=\"{AsyncThreshold}\" />");
        }

        if (FixedTime && BufferingSize == null)
        {
            xml.Append(FixedTimeXml);
        }

        foreach (FilterSpec filter in AsyncFilters)
        {
            xml.Append(filter.ToXml());
        }

        if (NestedKind != null)
        {
            xml.Append("<appender-ref ref=\"async2\" /></appender>");
            xml.Append($"<appender name=\"async2\" type=\"{(oracle ? "log4net.Appender.ForwardingAppender" : $"LowLatencyLog.Appender.{NestedKind}, LowLatencyLog")}\">");
        }

        for (int i = 0; i < Children.Count; i++)
        {
            xml.Append($"<appender-ref ref=\"child{i}\" />");
        }

        xml.Append("</appender>");
        if (Sibling)
        {
            xml.Append("<appender name=\"sibling\" type=\"log4net.Appender.FileAppender\"><file value=\"{dir}s.log\" /><appendToFile value=\"true\" />");
            xml.Append($"<layout type=\"log4net.Layout.PatternLayout\"><conversionPattern value=\"{FilterSpec.Escape(Mark + SiblingPattern)}\" /></layout></appender>");
        }

        for (int i = 0; i < Children.Count; i++)
        {
            xml.Append(Children[i].ToXml("child" + i, oracle, Fix, Mark));
        }

        if (SubAsync)
        {
            xml.Append($"<appender name=\"subasync\" type=\"{type}\"><appender-ref ref=\"subfile\" /></appender>");
            xml.Append($"<appender name=\"subfile\" type=\"{(oracle ? "log4net.Appender.FileAppender" : "LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog")}\">");
            xml.Append("<file value=\"{dir}sub.log\" /><appendToFile value=\"true\" />");
            xml.Append($"<layout type=\"log4net.Layout.PatternLayout\"><conversionPattern value=\"{FilterSpec.Escape(Mark + SubPattern)}\" /></layout></appender>");
        }

        if (SubLoggerLevel != null || Sibling || SubAsync)
        {
            xml.Append($"<logger name=\"App.Sub\" additivity=\"{(Additivity ? "true" : "false")}\">");
            xml.Append(SubLoggerLevel == null ? "" : $"<level value=\"{SubLoggerLevel}\" />").Append(Sibling ? "<appender-ref ref=\"sibling\" />" : "");
            xml.Append(SubAsync ? "<appender-ref ref=\"subasync\" />" : "");
            xml.Append("</logger>");
        }

        xml.Append($"<root><level value=\"{RootLevel}\" /><appender-ref ref=\"{top}\" /></root></log4net>");
        return xml.ToString();
    }

    public TreeSpec Clone()
    {
        var copy = (TreeSpec)MemberwiseClone();
        copy.AsyncFilters = AsyncFilters.ToList();
        copy.Children = Children.Select(c => c.Clone()).ToList();
        return copy;
    }
}
