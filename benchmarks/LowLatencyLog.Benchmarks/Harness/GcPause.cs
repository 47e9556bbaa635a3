using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Tracing;
using System.Globalization;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Threading;
using LowLatencyLog.Benchmarks.Baselines;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// <c>--gc-pause [rounds] [sizes]</c>: how long a gen-0 collection stops the application while an async appender's
/// buffer is full, against the synchronous file appender after the same calls. The worker is held by a child at a
/// gate (a disk that stopped) while the calling thread logs twice the buffer with <c>overflow=Discard</c>, so every
/// slot holds a pending event (after one lap with the gate open and two full collections: the buffer as it is in a
/// running application, every slot's text storage made and old); then the process allocates 4 MB of short-lived objects and collects generation 0 ten
/// times, reading the runtime's pause time around each. A slot that kept a reference to something the call allocated
/// would make each collection trace it (and promote it). The first collection also takes the calls' own garbage (a
/// synchronous appender's larger allocations set off collections during its calls, an async one's may not), so its
/// gen-0 size, its pause per MB of that, what it promoted and what it marked through the cards are printed with it.
/// The sizes (default <c>8192,65536</c>: the default buffer and the benchmarks') show whether the pause grows with the
/// buffer.
/// </summary>
internal static class GcPause
{
    private const int Collections = 10;

    public static int Run(string[] args)
    {
        int rounds = args.Length > 1 && args[1] != "-" ? int.Parse(args[1], CultureInfo.InvariantCulture) : 3;
        int[] sizes = args.Length > 2 ? args[2].Split(',').Select(s => int.Parse(s, CultureInfo.InvariantCulture)).ToArray() : new[] { 8192, 65536 };
        var cases = new List<(string Name, Func<MessageKind, BenchSession> Open, int Events, Gate Gate)>();
        foreach (int size in sizes)
        {
            cases.Add(($"RollingBufferedFileAppender alone, {size * 2:N0} calls", kind => Session(CaseTable.RollingBufferedFileAppender("Root"), kind), size * 2, Gate.None));
            foreach (string name in new[] { "BoundedQueue", "HotSwap", "Disruptor" })
            {
                cases.Add(($"{name}AsyncAppender → file, bufferSize {size:N0}, full (file's lock held)", kind => Session(LockGated(name, size), kind), size * 2, Gate.FileLock));
                cases.Add(($"{name}AsyncAppender → file + a log4net child, bufferSize {size:N0}, full", kind => Session(Gated(name, size), kind), size * 2, Gate.Child));
            }
        }

        Console.WriteLine($"gen-0 pause: {rounds} rounds, {Collections} collections per case after its calls (Format1); {Environment.ProcessorCount} cores; {Environment.Version}.");
        var results = cases.ToDictionary(c => c.Name, _ => new List<double[]>());
        for (int round = 0; round < rounds; round++)
        {
            foreach (var c in cases)
            {
                results[c.Name].Add(Measure(c.Open, c.Events, c.Gate));
            }
        }

        Console.WriteLine("| case | first collection, µs (rounds) | its gen 0, MB | its µs per MB of gen 0 | it promoted, KB | it marked through cards, KB | median of all, µs | gen-1 collections |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var c in cases)
        {
            List<double[]> r = results[c.Name];
            double[] all = r.SelectMany(x => x.Take(Collections)).OrderBy(x => x).ToArray();
            string firsts = string.Join(", ", r.Select(x => x[0].ToString("F0", CultureInfo.InvariantCulture)));
            string Each(Func<double[], double> f, string format) => string.Join(", ", r.Select(x => f(x).ToString(format, CultureInfo.InvariantCulture)));
            Console.WriteLine($"| {c.Name} | {firsts} | {Each(x => x[Collections + 2] / 1048576, "F1")} | {Each(x => x[0] / (x[Collections + 2] / 1048576), "F0")} | "
                + $"{Each(x => x[Collections + 3] / 1024, "F0")} | {Each(x => x[Collections + 1] / 1024, "F0")} | {all[all.Length / 2]:F0} | {r.Sum(x => x[Collections]):F0} |");
        }

        return 0;
    }

    private static BenchSession Session(string appenders, MessageKind kind) => new Log4netSession($"""
        <log4net>
        {appenders}
          <root><level value="INFO" /><appender-ref ref="Root" /></root>
        </log4net>
        """, null, kind);

    // The file alone behind the async appender, as the README configures it; the file takes log4net's inter-process
    // lock for each write, so holding that lock (its named mutex) holds the worker, as a stalled disk would.
    private static string LockGated(string name, int size) => $$"""
        <appender name="Root" type="LowLatencyLog.Appender.{{name}}AsyncAppender, LowLatencyLog">
          <bufferSize value="{{size}}" />
          <overflow value="Discard" />
          <appender-ref ref="Child" />
        </appender>
        {{CaseTable.RollingBufferedFileAppender("Child").Replace("<file ", "<lockingModel type=\"log4net.Appender.FileAppender+InterProcessLock\" /><file ")}}
        """;

    // A log4net appender beside the file holds the worker; being log4net's, it may read each event's message object,
    // so the slots keep those objects (what a full buffer then holds for the collector). The fix names what the file needs.
    private static string Gated(string name, int size) => $$"""
        <appender name="Root" type="LowLatencyLog.Appender.{{name}}AsyncAppender, LowLatencyLog">
          <bufferSize value="{{size}}" />
          <overflow value="Discard" />
          <fix value="Message, ThreadName, Exception" />
          <appender-ref ref="Child" />
          <appender-ref ref="Gate" />
        </appender>
        {{CaseTable.RollingBufferedFileAppender("Child")}}
        <appender name="Gate" type="{{typeof(GateAppender).FullName}}, {{typeof(GateAppender).Assembly.GetName().Name}}" />
        """;

    /// <summary>Pause of each collection in µs, then the number of gen-1 collections among them.</summary>
    private static double[] Measure(Func<MessageKind, BenchSession> open, int events, Gate gate)
    {
        using BenchSession session = open(MessageKind.Format1);
        for (int i = 0; i < events; i++)
        {
            session.Log(i); // a lap through every slot first, so each has the text storage it keeps
        }

        Thread.Sleep(500); // the worker drains the lap (tens of milliseconds)

        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        Mutex? fileLock = null;
        if (gate == Gate.Child)
        {
            GateAppender.Waiting.Reset();
            GateAppender.Open.Reset();
            session.Log(0);
            GateAppender.Waiting.Wait();
        }
        else if (gate == Gate.FileLock)
        {
            fileLock = new Mutex(false, LowLatencyLog.Files.SharedLock.Log4netName(System.IO.Path.Combine(session.Folder, "app.log")));
            fileLock.WaitOne();
            session.Log(0);
            Thread.Sleep(100); // the worker is now waiting for the lock with that event
        }

        for (int i = 0; i < events; i++)
        {
            session.Log(i);
        }

        var pauses = new double[Collections + 4];
        int gen1 = GC.CollectionCount(1);
        using var marks = new MarkListener();
        Thread.Sleep(100); // the listener's session starts
        long firstGc = GC.CollectionCount(0) + 1;
        for (int k = 0; k < Collections; k++)
        {
            Garbage();
            TimeSpan before = GC.GetTotalPauseDuration();
            GC.Collect(0, GCCollectionMode.Forced, blocking: true);
            pauses[k] = (GC.GetTotalPauseDuration() - before).TotalMilliseconds * 1000;
            if (k == 0)
            {
                GCMemoryInfo info = GC.GetGCMemoryInfo(GCKind.Ephemeral);
                pauses[Collections + 2] = info.GenerationInfo[0].SizeBeforeBytes;
                pauses[Collections + 3] = info.PromotedBytes;
            }
        }

        pauses[Collections] = GC.CollectionCount(1) - gen1;
        Thread.Sleep(500); // the runtime's events arrive on their own thread
        pauses[Collections + 1] = marks.OlderGenerationBytes(firstGc);
        GateAppender.Open.Set();
        fileLock?.ReleaseMutex();
        fileLock?.Dispose();
        return pauses;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Garbage()
    {
        var list = new List<object>();
        for (int i = 0; i < 100_000; i++)
        {
            list.Add(new object());
            if (list.Count == 1000)
            {
                list.Clear();
            }
        }
    }

    private enum Gate
    {
        None,
        FileLock,
        Child,
    }

    /// <summary>
    /// The runtime's mark events: how many bytes each collection marked through each kind of root. Type 3 is the
    /// older generation, the objects a gen-0 collection reaches through the cards of older objects (a buffer's slots).
    /// </summary>
    private sealed class MarkListener : EventListener
    {
        private const int GcStartId = 1;
        private const int GcMarkWithTypeId = 202;
        private const int OlderGeneration = 3;
        private readonly ConcurrentDictionary<long, long> _older = new();
        private long _current;

        public long OlderGenerationBytes(long gcIndex) => _older.TryGetValue(gcIndex, out long bytes) ? bytes : -1;

        protected override void OnEventSourceCreated(EventSource source)
        {
            if (source.Name == "Microsoft-Windows-DotNETRuntime")
            {
                EnableEvents(source, EventLevel.Informational, (EventKeywords)1); // GC
            }
        }

        protected override void OnEventWritten(EventWrittenEventArgs e)
        {
            if (e.Payload == null || e.PayloadNames == null)
            {
                return;
            }

            if (e.EventId == GcStartId)
            {
                _current = Convert.ToInt64(e.Payload[e.PayloadNames.IndexOf("Count")], CultureInfo.InvariantCulture);
            }
            else if (e.EventId == GcMarkWithTypeId && Convert.ToInt32(e.Payload[e.PayloadNames.IndexOf("Type")], CultureInfo.InvariantCulture) == OlderGeneration)
            {
                _older.AddOrUpdate(_current, Convert.ToInt64(e.Payload[e.PayloadNames.IndexOf("Bytes")], CultureInfo.InvariantCulture), (_, b) => b + Convert.ToInt64(e.Payload[e.PayloadNames.IndexOf("Bytes")], CultureInfo.InvariantCulture));
            }
        }
    }
}
