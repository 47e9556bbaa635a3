using System;
using System.Collections.Generic;
using System.Diagnostics.Tracing;
using System.Threading;

namespace LowLatencyLog.Tests.Support;

/// <summary>
/// The bytes each garbage collection promoted, from the runtime's own GC events (GCStart and GCHeapStats): what survived
/// the young generations, measured directly instead of inferred from how many collections ran, which depends on the
/// machine's load and the GC's tuning.
/// </summary>
internal sealed class GcPromotions : EventListener
{
    private const long GcKeyword = 0x1;
    private const int GcStartId = 1;
    private const int GcHeapStatsId = 4;

    private readonly object _lock = new object();
    private readonly List<Collection> _collections = new List<Collection>();
    private Collection? _current;
    private long _lastIndex;

    /// <summary>One collection: its index (as <see cref="GC.CollectionCount"/> of gen 0 counts), depth and promotions.</summary>
    public sealed class Collection
    {
        public long Index { get; init; }

        public int Generation { get; init; }

        /// <summary>Bytes that survived gen 0 in this collection (moved to gen 1).</summary>
        public long PromotedFromGen0 { get; set; }

        /// <summary>Bytes that survived gen 1 in this collection (moved to gen 2); 0 for a gen-0 collection.</summary>
        public long PromotedFromGen1 { get; set; }

        public bool HasStats { get; set; }

        public override string ToString() => $"#{Index} gen{Generation}: {PromotedFromGen0:N0} B from gen0, {PromotedFromGen1:N0} B from gen1";
    }

    protected override void OnEventSourceCreated(EventSource source)
    {
        if (source.Name == "Microsoft-Windows-DotNETRuntime")
        {
            EnableEvents(source, EventLevel.Informational, (EventKeywords)GcKeyword);
        }
    }

    protected override void OnEventWritten(EventWrittenEventArgs e)
    {
        lock (_lock)
        {
            if (e.EventId == GcStartId && e.Payload != null)
            {
                _current = new Collection
                {
                    Index = Convert.ToInt64(e.Payload[e.PayloadNames!.IndexOf("Count")]),
                    Generation = Convert.ToInt32(e.Payload[e.PayloadNames.IndexOf("Depth")]),
                };
                _collections.Add(_current);
            }
            else if (e.EventId == GcHeapStatsId && e.Payload != null && _current != null && !_current.HasStats)
            {
                _current.PromotedFromGen0 = Convert.ToInt64(e.Payload[e.PayloadNames!.IndexOf("TotalPromotedSize0")]);
                _current.PromotedFromGen1 = Convert.ToInt64(e.Payload[e.PayloadNames.IndexOf("TotalPromotedSize1")]);
                _current.HasStats = true;
                _lastIndex = Math.Max(_lastIndex, _current.Index);
            }
        }
    }

    /// <summary>
    /// The collections with an index in (<paramref name="afterIndex"/>, <paramref name="throughIndex"/>], once the
    /// runtime has reported them all (its events reach the listener a little after the collection).
    /// </summary>
    public IReadOnlyList<Collection> Between(long afterIndex, long throughIndex, TimeSpan wait)
    {
        DateTime deadline = DateTime.UtcNow + wait;
        while (true)
        {
            lock (_lock)
            {
                if (_lastIndex >= throughIndex || DateTime.UtcNow > deadline)
                {
                    return _collections.FindAll(c => c.HasStats && c.Index > afterIndex && c.Index <= throughIndex);
                }
            }

            Thread.Sleep(20);
        }
    }
}
