using System;
using System.Collections.Generic;
using System.Diagnostics.Metrics;

namespace LowLatencyLog.Forwarding;

/// <summary>
/// The <c>LowLatencyLog</c> meter (<see cref="System.Diagnostics.Metrics"/>): events accepted, delivered and discarded
/// by each async appender, re-entrant calls it did not take, and its queue depth, each tagged with the appender's name. Watch it with
/// <c>dotnet-counters monitor --counters LowLatencyLog</c>.
/// </summary>
/// <remarks>
/// Every instrument is observable: it reads counters the appender keeps anyway, only when a listener collects, so
/// metrics cost the logging threads nothing. Appenders register at activation and unregister when they close.
/// </remarks>
internal static class AppenderMetrics
{
    public const string MeterName = "LowLatencyLog";

    private static readonly object Lock = new object();
    private static readonly List<Source> Sources = new List<Source>();
    private static readonly Meter Meter = new Meter(MeterName, typeof(AppenderMetrics).Assembly.GetName().Version?.ToString());

    static AppenderMetrics()
    {
        Meter.CreateObservableCounter("lowlatencylog.events.accepted", () => Observe(s => s.Accepted()), "{event}", "Events accepted into the appender's buffer.");
        Meter.CreateObservableCounter("lowlatencylog.events.delivered", () => Observe(s => s.Delivered()), "{event}", "Events handed to the child appenders.");
        Meter.CreateObservableCounter("lowlatencylog.events.discarded", () => Observe(s => s.Discarded()), "{event}", "Events dropped because the buffer was full (overflow=Discard).");
        Meter.CreateObservableGauge("lowlatencylog.queue.depth", () => Observe(s => s.Depth()), "{event}", "Events waiting in the appender's buffer.");
        Meter.CreateObservableCounter("lowlatencylog.events.reentrant", () => Observe(s => s.Reentrant()), "{event}", "Log calls made on a thread while the appender took an event on it (not taken, as log4net's appenders drop them).");
    }

    /// <summary>Starts reporting an appender's counters; dispose the result to stop.</summary>
    public static IDisposable Register(string appender, Func<long> accepted, Func<long> delivered, Func<long> discarded, Func<long> depth, Func<long> reentrant)
    {
        var source = new Source(appender, accepted, delivered, discarded, depth, reentrant);
        lock (Lock)
        {
            Sources.Add(source);
        }

        return source;
    }

    private static List<Measurement<long>> Observe(Func<Source, long> read)
    {
        Source[] sources;
        lock (Lock)
        {
            sources = Sources.ToArray();
        }

        var measurements = new List<Measurement<long>>(sources.Length);
        foreach (Source source in sources)
        {
            measurements.Add(new Measurement<long>(read(source), new KeyValuePair<string, object?>("appender", source.Appender)));
        }

        return measurements;
    }

    private sealed class Source : IDisposable
    {
        public Source(string appender, Func<long> accepted, Func<long> delivered, Func<long> discarded, Func<long> depth, Func<long> reentrant)
        {
            Reentrant = reentrant;
            Appender = appender;
            Accepted = accepted;
            Delivered = delivered;
            Discarded = discarded;
            Depth = depth;
        }

        public string Appender { get; }

        public Func<long> Accepted { get; }

        public Func<long> Delivered { get; }

        public Func<long> Discarded { get; }

        public Func<long> Depth { get; }

        public Func<long> Reentrant { get; }

        public void Dispose()
        {
            lock (Lock)
            {
                Sources.Remove(this);
            }
        }
    }
}
