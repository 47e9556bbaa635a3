using System;
using System.Collections.Concurrent;
using System.Collections.Generic;
using System.Diagnostics.Tracing;
using System.Globalization;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Text.Json;
using System.Threading;
using LowLatencyLog.Benchmarks.Baselines;
using LowLatencyLog.Benchmarks.Cases;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// <c>--gc-pause [rounds] [sizes]</c>: how long a gen-0 collection stops the application while an async appender's
/// buffer is full, against the synchronous file appender after the same calls, each case in a process of its own (an
/// earlier case's heap would shape the next one's collections). The worker is held (by the file's own lock, or by a
/// log4net child at a gate: a disk that stopped) while the calling thread logs twice the buffer with
/// <c>overflow=Discard</c>, so every slot holds a pending event. Before that come a gen-0 collection right after the
/// appender started (the application's first: its buffer is young then), and, with the worker free, one lap
/// through every slot and the appender's first collections, timed on their own: three gen-0 ones, a gen-1, two gen-0,
/// a full blocking one and a gen-0 (the slots' text storage, made with the buffer, is young at first; the cards over
/// the slots are scanned until it is old). Then the process allocates 4 MB of short-lived objects and collects
/// generation 0 ten times, reading the runtime's pause time around each. A slot that kept a reference to something
/// the call allocated would make each collection trace it (and promote it). The first also takes the calls' own
/// garbage (a synchronous appender's larger allocations set off collections during its calls, an async one's may not),
/// so its gen-0 size, what it promoted and what it marked through the cards are printed with it, and the timed
/// collections are split into phases by the runtime's GC events. A third case per appender makes the same calls and
/// lets the worker drain them before the collections: the same garbage, the buffer empty. The sizes (default
/// <c>8192,65536</c>: the default buffer and the benchmarks') show whether the pause grows with the buffer.
/// </summary>
internal static class GcPause
{
    private const int Collections = 10;

    private const string ResultPrefix = "GC-PAUSE-RESULT ";

    public static int Run(string[] args)
    {
        int rounds = args.Length > 1 && args[1] != "-" ? int.Parse(args[1], CultureInfo.InvariantCulture) : 3;
        string sizes = args.Length > 2 && args[2] != "-" ? args[2] : "8192,65536";
        List<Case> cases = Cases(sizes);
        Console.WriteLine($"gen-0 pause: {rounds} rounds, each case in a process of its own, {Collections} collections after its calls (Format1); {Environment.ProcessorCount} cores; {Environment.Version}.");
        var results = cases.ToDictionary(c => c.Name, _ => new List<Result>());
        for (int round = 0; round < rounds; round++)
        {
            for (int index = 0; index < cases.Count; index++)
            {
                results[cases[index].Name].Add(RunChild(sizes, index));
            }
        }

        string Each(List<Result> r, Func<Result, double> f, string format) => string.Join(", ", r.Select(x => f(x).ToString(format, CultureInfo.InvariantCulture)));
        Console.WriteLine("The appender's first collections, every buffer empty; µs (rounds), the card scan from the runtime's GC events:");
        Console.WriteLine("| case | gen-0 right after start | its suspension | its mark | its card scan | after its mark | it promoted, KB | collections during the lap | 1st gen-0 | its card scan | 3rd gen-0's card scan | a gen-1 | the next gen-0's card scan | the one after | a full blocking collection | the gen-0 after it | its card scan |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var c in cases.Where(c => c.Gate != Gate.FileLockReleased))
        {
            List<Result> r = results[c.Name];
            Console.WriteLine($"| {c.Name} | {Each(r, x => x.Life.StartPause, "F0")} | {Each(r, x => x.Life.Start.SuspendUs, "F0")} | {Each(r, x => x.Life.Start.MarkUs, "F0")} | {Each(r, x => x.Life.Start.CardsUs, "F0")} | {Each(r, x => x.Life.Start.AfterMarkUs, "F0")} | {Each(r, x => x.Life.StartPromoted / 1024, "F0")} | {Each(r, x => x.Life.LapCollections, "F0")} | {Each(r, x => x.Life.Early1Pause, "F0")} | {Each(r, x => x.Life.Early1.CardsUs, "F0")} | {Each(r, x => x.Life.Early3.CardsUs, "F0")} | "
                + $"{Each(r, x => x.Life.Gen1Pause, "F0")} | {Each(r, x => x.Life.AfterGen1.CardsUs, "F0")} | {Each(r, x => x.Life.AfterGen1Next.CardsUs, "F0")} | {Each(r, x => x.Life.FullPause, "F0")} | "
                + $"{Each(r, x => x.Life.AfterFullPause, "F0")} | {Each(r, x => x.Life.AfterFull.CardsUs, "F0")} |");
        }

        Console.WriteLine();
        Console.WriteLine("Then the calls (each buffer full), and ten gen-0 collections; µs (rounds):");
        Console.WriteLine("| case | first collection | its suspension | its mark | of which the cards | after the mark | its gen 0, MB | it promoted, KB | it marked through cards, KB | median of the others | gen-1 collections | collections during the calls | their pauses |");
        Console.WriteLine("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
        foreach (var c in cases)
        {
            List<Result> r = results[c.Name];
            double[] others = r.SelectMany(x => x.Pauses.Skip(1)).OrderBy(x => x).ToArray();
            Console.WriteLine($"| {c.Name} | {Each(r, x => x.Pauses[0], "F0")} | {Each(r, x => x.First.SuspendUs, "F0")} | {Each(r, x => x.First.MarkUs, "F0")} | {Each(r, x => x.First.CardsUs, "F0")} | {Each(r, x => x.First.AfterMarkUs, "F0")} | {Each(r, x => x.Gen0Bytes / 1048576, "F1")} | {Each(r, x => x.PromotedBytes / 1024, "F0")} | "
                + $"{Each(r, x => x.First.CardBytes / 1024, "F0")} | {others[others.Length / 2]:F0} | {r.Sum(x => x.Gen1)} | {Each(r, x => x.DuringCount, "F0")} | {Each(r, x => x.DuringPauseUs, "F0")} |");
        }

        return 0;
    }

    /// <summary><c>--gc-pause-case sizes index</c>: one case, in this fresh process (so that no earlier case's heap
    /// shapes its collections); prints its result for <see cref="Run"/>.</summary>
    public static int RunCase(string[] args)
    {
        Case c = Cases(args[1])[int.Parse(args[2], CultureInfo.InvariantCulture)];
        Console.WriteLine(ResultPrefix + JsonSerializer.Serialize(Measure(c.Open, c.Events, c.Gate)));
        return 0;
    }

    private static Result RunChild(string sizes, int index) =>
        ChildRun.Run<Result>(new[] { "--gc-pause-case", sizes, index.ToString(CultureInfo.InvariantCulture) }, ResultPrefix, null, out string failure)
            ?? throw new InvalidOperationException("The case's process failed, " + failure);

    private static List<Case> Cases(string sizeList)
    {
        var cases = new List<Case>();
        foreach (int size in sizeList.Split(',').Select(s => int.Parse(s, CultureInfo.InvariantCulture)))
        {
            cases.Add(new($"RollingBufferedFileAppender alone, {size * 2:N0} calls", kind => Session(CaseTable.RollingBufferedFileAppender("Root"), kind), size * 2, Gate.None));
            foreach (string name in new[] { "BoundedQueue", "HotSwap", "Disruptor" })
            {
                cases.Add(new($"{name}AsyncAppender → file, bufferSize {size:N0}, full (file's lock held)", kind => Session(LockGated(name, size), kind), size * 2, Gate.FileLock));
                cases.Add(new($"{name}AsyncAppender → file, bufferSize {size:N0}, the same calls, drained", kind => Session(LockGated(name, size), kind), size * 2, Gate.FileLockReleased));
                cases.Add(new($"{name}AsyncAppender → file + a log4net child, bufferSize {size:N0}, full", kind => Session(Gated(name, size), kind), size * 2, Gate.Child));
            }
        }

        return cases;
    }

    private sealed record Case(string Name, Func<MessageKind, BenchSession> Open, int Events, Gate Gate);

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

    private static Result Measure(Func<MessageKind, BenchSession> open, int events, Gate gate)
    {
        using var listener = new PhaseListener();
        Thread.Sleep(100); // the listener's session starts
        using BenchSession session = open(MessageKind.Format1);

        // The application's first gen-0 collection after the appender started: what start-up left, and for an async
        // appender its buffer, made just now (the same moment in every case, where the lap's own collections are not).
        long start = GC.CollectionCount(0) + 1;
        double startPause = CollectGen0();
        double startPromoted = GC.GetGCMemoryInfo(GCKind.Ephemeral).PromotedBytes;
        int lapCollections = GC.CollectionCount(0);
        for (int i = 0; i < events; i++)
        {
            session.Log(i); // a lap through every slot first, so each has the text storage it keeps
        }

        Thread.Sleep(500); // the worker drains the lap (tens of milliseconds)
        lapCollections = GC.CollectionCount(0) - lapCollections;

        // The appender's first collections: its slots' text storage is young when the buffer is made, so the cards over
        // the slots stay set, and every gen-0 collection scans them, until that storage is old (a gen-1 collection
        // promotes it, the next ephemeral one finds the cards clean). Then a full collection, and the one after it.
        long early1 = GC.CollectionCount(0) + 1;
        double early1Pause = CollectGen0();
        CollectGen0();
        long early3 = GC.CollectionCount(0) + 1;
        CollectGen0();
        double gen1Pause = Paused(() => GC.Collect(1, GCCollectionMode.Forced, blocking: true));
        long afterGen1 = GC.CollectionCount(0) + 1;
        CollectGen0();
        long afterGen1Next = GC.CollectionCount(0) + 1;
        CollectGen0();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        double fullPause = Paused(GC.Collect);
        long afterFullGc = GC.CollectionCount(0) + 1;
        double afterFull = CollectGen0();

        Mutex? fileLock = null;
        if (gate == Gate.Child)
        {
            GateAppender.Waiting.Reset();
            GateAppender.Open.Reset();
            session.Log(0);
            GateAppender.Waiting.Wait();
        }
        else if (gate is Gate.FileLock or Gate.FileLockReleased)
        {
            fileLock = new Mutex(false, LowLatencyLog.Files.SharedLock.Log4netName(System.IO.Path.Combine(session.Folder, "app.log")));
            fileLock.WaitOne();
            session.Log(0);
            Thread.Sleep(100); // the worker is now waiting for the lock with that event
        }

        int gen0 = GC.CollectionCount(0);
        TimeSpan paused = GC.GetTotalPauseDuration();
        for (int i = 0; i < events; i++)
        {
            session.Log(i);
        }

        int duringCount = GC.CollectionCount(0) - gen0;
        double duringPauseUs = (GC.GetTotalPauseDuration() - paused).TotalMilliseconds * 1000;
        if (gate == Gate.FileLockReleased)
        {
            // The same calls and the same garbage, but the buffer empty: what the full buffer itself adds.
            fileLock!.ReleaseMutex();
            Thread.Sleep(1000);
            fileLock.WaitOne();
        }

        var pauses = new double[Collections];
        int gen1 = GC.CollectionCount(1);
        double gen0Bytes = 0;
        double promoted = 0;
        long firstGc = GC.CollectionCount(0) + 1;
        for (int k = 0; k < Collections; k++)
        {
            pauses[k] = CollectGen0();
            if (k == 0)
            {
                GCMemoryInfo info = GC.GetGCMemoryInfo(GCKind.Ephemeral);
                gen0Bytes = info.GenerationInfo[0].SizeBeforeBytes;
                promoted = info.PromotedBytes;
            }
        }

        gen1 = GC.CollectionCount(1) - gen1;
        Thread.Sleep(500); // the runtime's events arrive on their own thread
        GateAppender.Open.Set();
        fileLock?.ReleaseMutex();
        fileLock?.Dispose();
        var life = new Life(startPause, listener.Of(start), startPromoted, lapCollections, early1Pause, listener.Of(early1), listener.Of(early3), gen1Pause, listener.Of(afterGen1), listener.Of(afterGen1Next), fullPause, afterFull, listener.Of(afterFullGc));
        return new Result(pauses, gen1, gen0Bytes, promoted, duringCount, duringPauseUs, listener.Of(firstGc), life);
    }

    private static double Paused(Action collect)
    {
        TimeSpan before = GC.GetTotalPauseDuration();
        collect();
        return (GC.GetTotalPauseDuration() - before).TotalMilliseconds * 1000;
    }

    /// <summary>4 MB of short-lived objects, then a gen-0 collection; its pause in µs, read from the runtime.</summary>
    private static double CollectGen0()
    {
        Garbage();
        TimeSpan before = GC.GetTotalPauseDuration();
        GC.Collect(0, GCCollectionMode.Forced, blocking: true);
        return (GC.GetTotalPauseDuration() - before).TotalMilliseconds * 1000;
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
        FileLockReleased,
        Child,
    }

    private sealed record Result(double[] Pauses, int Gen1, double Gen0Bytes, double PromotedBytes, int DuringCount, double DuringPauseUs, Phases First, Life Life);

    /// <summary>The collections before the calls, in µs: the first gen-0 one after the appender started, then the lap's first gen-0 ones, a gen-1 one and the two gen-0
    /// ones after it, a full blocking one and the gen-0 one after it.</summary>
    private sealed record Life(double StartPause, Phases Start, double StartPromoted, int LapCollections, double Early1Pause, Phases Early1, Phases Early3, double Gen1Pause, Phases AfterGen1, Phases AfterGen1Next, double FullPause, double AfterFullPause, Phases AfterFull);

    /// <summary>Where one collection's pause went, from the timestamps of the runtime's events; -1 where one is missing.</summary>
    private sealed record Phases(double SuspendUs, double MarkUs, double CardsUs, double AfterMarkUs, double CardBytes);

    /// <summary>
    /// The runtime's GC events for each collection, in the order it raises them: suspension begins and ends, the
    /// collection starts, one mark event per kind of root (type 3 is the older generation: what a gen-0 collection
    /// reaches through the cards of older objects, a buffer's slots), the collection ends. The time
    /// between two events is the time of the phase they bound.
    /// </summary>
    private sealed class PhaseListener : EventListener
    {
        private const int GcStart = 1;
        private const int GcEnd = 2;
        private const int SuspendEnd = 8;
        private const int SuspendBegin = 9;
        private const int MarkWithType = 202;
        private const int OlderGeneration = 3;
        private readonly ConcurrentDictionary<long, Record> _records = new();
        private Record? _current;

        public Phases Of(long gcIndex)
        {
            if (!_records.TryGetValue(gcIndex, out Record? r))
            {
                return new Phases(-1, -1, -1, -1, -1);
            }

            static double Us(DateTime from, DateTime to) => from == default || to == default ? -1 : (to - from).TotalMilliseconds * 1000;
            return new Phases(Us(r.SuspendBegin, r.SuspendEnd), Us(r.Start, r.LastMark), Us(r.BeforeCards, r.Cards), Us(r.LastMark, r.End), r.CardBytes);
        }

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

            object Field(string name) => e.Payload[e.PayloadNames.IndexOf(name)]!;
            switch (e.EventId)
            {
                case SuspendBegin:
                    _current = new Record { SuspendBegin = e.TimeStamp };
                    break;
                case SuspendEnd when _current != null:
                    _current.SuspendEnd = e.TimeStamp;
                    break;
                case GcStart when _current != null:
                    _current.Start = e.TimeStamp;
                    _current.LastMark = e.TimeStamp;
                    _records[Convert.ToInt64(Field("Count"), CultureInfo.InvariantCulture)] = _current;
                    break;
                case MarkWithType when _current != null:
                    if (Convert.ToInt32(Field("Type"), CultureInfo.InvariantCulture) == OlderGeneration)
                    {
                        _current.BeforeCards = _current.LastMark;
                        _current.Cards = e.TimeStamp;
                        _current.CardBytes += Convert.ToInt64(Field("Bytes"), CultureInfo.InvariantCulture);
                    }

                    _current.LastMark = e.TimeStamp;
                    break;
                case GcEnd when _current != null:
                    _current.End = e.TimeStamp;
                    break;
            }
        }

        private sealed class Record
        {
            public DateTime SuspendBegin;
            public DateTime SuspendEnd;
            public DateTime Start;
            public DateTime BeforeCards;
            public DateTime Cards;
            public DateTime LastMark;
            public DateTime End;
            public long CardBytes;
        }
    }
}
