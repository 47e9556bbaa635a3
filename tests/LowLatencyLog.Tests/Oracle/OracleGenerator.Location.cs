using System.Collections.Generic;
using System.Linq;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>The caller's location and the thread's identity in patterns, and the <c>fix</c> settings that take them or not.</summary>
public sealed partial class OracleGenerator
{
    private static readonly string[] LocationParts =
    {
        "%location", "%l", "%class", "%C", "%C{1}", "%type{2}", "%method", "%M", "%file", "%F", "%line", "%L", "%C.%M:%L",
        "%M(%F:%line)", "%stacktrace{1}", "%stacktrace{2}", "%stacktracedetail{1}", "%stacktracedetail{2}", "%identity",
    };

    private static readonly string[] Principals = { "alice", "", "Ünï 線程", "DOMAIN\\bob" };

    /// <summary>With <see cref="OracleFeature.Location"/>, one or two location converters before the pattern's newline.</summary>
    private string WithLocation(string pattern)
    {
        if (!Has(OracleFeature.Location) || !Chance(70))
        {
            return pattern;
        }

        var parts = new List<string>();
        for (int i = _random.Next(1, 3); i > 0; i--)
        {
            string part = Pick(LocationParts);
            // A frame above the caller of a re-entrant call is log4net's rendering on one side and ours on the other.
            part = Has(OracleFeature.Reentrant) ? part.Replace("{2}", "{1}") : part;
            // As ThreadMarks does for %logger{n}: log4net's precision under th-TH throws on the producer thread only.
            parts.Add(_thai ? part.Replace("{1}", "").Replace("{2}", "") : part);
        }

        string location = " " + string.Join(Pick(new[] { " ", " | ", "" }), parts);
        const string NewLine = "%newline";
        return pattern.EndsWith(NewLine, System.StringComparison.Ordinal)
            ? pattern.Substring(0, pattern.Length - NewLine.Length) + location + NewLine
            : pattern + location;
    }

    /// <summary>
    /// An explicit <c>fix</c> for a tree whose children write the location or identity: one that takes both, or one
    /// that leaves either out (ours then writes it empty, <see cref="OracleLocation.Expected"/>). Stack frames are
    /// always taken: log4net reports an error for each event without them.
    /// </summary>
    private string LocationFix(TreeSpec tree)
    {
        bool frames = tree.Children.Any(c => OracleLocation.ReadsFrames(c.Pattern));
        return frames
            ? Pick(new[] { "Auto", "All", "Partial, LocationInfo, Identity", "Partial, LocationInfo" })
            : Pick(new[] { "Auto", "All", "Partial", "Partial, LocationInfo", "Partial, Identity", "Partial, LocationInfo, Identity" });
    }

    /// <summary>Sets or clears the principal of a thread that keeps its context.</summary>
    private StepSpec PrincipalStep() =>
        new StepSpec { Kind = "context", ContextOp = "principal", ContextValue = ArgSpec.Of(Chance(20) ? null : Pick(Principals)) };
}
