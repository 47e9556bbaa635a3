using System;
using System.Collections.Generic;
using System.Diagnostics;
using log4net.Util;

namespace LowLatencyLog.Forwarding;

/// <summary>
/// Writes an appender's failures and losses to log4net's internal log as errors, which show without internal
/// debugging (unless <c>log4net.Internal.Quiet</c> is set), at most one line a second for each kind of report.
/// </summary>
/// <remarks>
/// An appender's default <c>ErrorHandler</c>, log4net's <c>OnlyOnceErrorHandler</c>, prints its first error and drops
/// every later one, so a loss reported only there is invisible once anything else has failed. The appenders report
/// through both. Reports of one kind within a second of the last one written are counted, and the next one written
/// says how many were left out.
/// </remarks>
internal sealed class VisibleReports
{
    private static readonly long Interval = Stopwatch.Frequency;

    private readonly Type _source;
    private readonly Dictionary<string, Entry> _kinds = new Dictionary<string, Entry>(StringComparer.Ordinal);

    public VisibleReports(Type source)
    {
        _source = source;
    }

    /// <summary>A report's kind: its wording without the figures in it (counts, names with numbers).</summary>
    public static string KindOf(string message)
    {
        var kind = new System.Text.StringBuilder(message.Length);
        foreach (char c in message)
        {
            if (!char.IsDigit(c))
            {
                kind.Append(c);
            }
        }

        return kind.ToString();
    }

    /// <summary>
    /// Whether a report must also go to the internal log: not when <paramref name="handler"/> is log4net's default one
    /// and has not reported anything yet, because it prints that first report itself (the same line twice otherwise).
    /// </summary>
    public static bool Needed(log4net.Core.IErrorHandler handler) => handler is not OnlyOnceErrorHandler { IsEnabled: true };

    /// <summary>Any thread; never throws. The kind is the message's wording without its figures.</summary>
    public void Error(string message, Exception? exception) => Error(KindOf(message), message, exception);

    /// <summary>Any thread; never throws.</summary>
    /// <param name="kind">What is reported: the rate limit is per kind.</param>
    /// <param name="message">The whole message.</param>
    /// <param name="exception">The cause, if any.</param>
    public void Error(string kind, string message, Exception? exception)
    {
        try
        {
            long now = Stopwatch.GetTimestamp();
            int left;
            lock (_kinds)
            {
                if (!_kinds.TryGetValue(kind, out Entry? entry))
                {
                    _kinds[kind] = entry = new Entry { Last = now - Interval };
                }

                if (now - entry.Last < Interval)
                {
                    entry.Suppressed++;
                    return;
                }

                left = entry.Suppressed;
                entry.Suppressed = 0;
                entry.Last = now;
            }

            LogLog.Error(_source, left == 0 ? message : $"{message} ({left} more report(s) like it in the last second were left out.)", exception);
        }
        catch
        {
            // Reporting must never throw into a log call or stop the worker.
        }
    }

    private sealed class Entry
    {
        public long Last;
        public int Suppressed;
    }
}
