using System;
using System.Collections.Generic;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>
/// What log4net does with one event in a generated tree (levels, thresholds, filter chains), so that the generator
/// can make every case write at least one line: a case whose filters drop everything compares nothing.
/// </summary>
internal static class OracleModel
{
    private static readonly string[] Order = { "ALL", "DEBUG", "INFO", "WARN", "ERROR", "FATAL", "OFF" };

    private static int Rank(string level) => Array.IndexOf(Order, level.ToUpperInvariant());

    /// <summary>Whether an event of <paramref name="level"/> with that message reaches at least one child's file.</summary>
    public static bool Reaches(TreeSpec tree, string logger, string level, string message)
    {
        int rank = Rank(level);
        string loggerLevel = logger == "App.Sub" && tree.SubLoggerLevel != null ? tree.SubLoggerLevel : tree.RootLevel;
        if (rank < Rank(loggerLevel))
        {
            return false;
        }

        if (tree.BufferingSize != null && tree.BufferingThreshold != null && rank < Rank(tree.BufferingThreshold))
        {
            return false;
        }

        if (!Passes(tree.AsyncThreshold, tree.AsyncFilters, rank, message))
        {
            return false;
        }

        foreach (ChildSpec child in tree.Children)
        {
            if (Passes(child.Threshold, child.Filters, rank, message))
            {
                return true;
            }
        }

        return false;
    }

    private static bool Passes(string? threshold, List<FilterSpec> filters, int rank, string message)
    {
        if (threshold != null && rank < Rank(threshold))
        {
            return false;
        }

        foreach (FilterSpec filter in filters)
        {
            switch (filter.Kind)
            {
                case "DenyAll":
                    return false;
                case "LevelRange":
                    if ((filter.Min != null && rank < Rank(filter.Min)) || (filter.Max != null && rank > Rank(filter.Max)))
                    {
                        return false;
                    }

                    if (filter.Accept)
                    {
                        return true;
                    }

                    break;
                case "StringMatch":
                    if (message.Contains(filter.Match!, StringComparison.Ordinal))
                    {
                        return filter.Accept;
                    }

                    break;
            }
        }

        return true;
    }
}
