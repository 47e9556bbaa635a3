using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Runtime.ExceptionServices;
using System.Threading;
using log4net;
using log4net.Appender;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>One thread of a concurrent step: the case's thread, the logger and how many calls it makes.</summary>
public sealed class ConcurrentProducer
{
    public int Thread;
    public string Logger = "App";
    public int Count;
}

/// <summary>
/// A concurrent step: 2 to 4 of the case's threads, released together by a barrier, each making a burst of calls.
/// Each message ends with its id, «step.thread.call», so that the files of two children can be matched event by event.
/// </summary>
public sealed class ConcurrentSpec
{
    public int Number;
    public List<ConcurrentProducer> Producers = new List<ConcurrentProducer>();

    public ConcurrentSpec With(List<ConcurrentProducer> producers) => new ConcurrentSpec { Number = Number, Producers = producers };

    public string ToCSharp(int repo) =>
        $"together, released by one barrier: {string.Join(" | ", Producers.Select(p => $"on [{p.Thread}] {OracleConcurrent.BurstCSharp($"repo{repo}.Logger({ArgSpec.Literal(p.Logger)})", Number, p.Count)}"))}"
        + " then each BufferingForwardingAppender of the repository flushed";
}

/// <summary>
/// Steps where several of a case's threads log at the same time. The interleaving then differs between the two runs
/// (and between runs of ours), so such a case is compared by what log4net defines (<see cref="OracleInterleaving"/>):
/// each thread's events in its order, every event (less what overflow=Discard may drop), the steps in their order, and
/// one order across the children of one async appender.
/// </summary>
internal static class OracleConcurrent
{
    /// <summary>
    /// Written first for each event by every layout of such a case: where an event starts (it may span lines) and its
    /// thread (an id between ⟪ and ⟫ is mapped to the thread's index).
    /// </summary>
    public const string Mark = "⁅⟪%thread⟫⁆";

    private static readonly string[] Loggers = { "App", "App.Sub", "Other.Component" };
    private static readonly string[] Levels = { "Info", "Info", "Debug", "Info", "Warn", "Info", "Error" };

    public static bool Applies(OracleCase oracleCase) => oracleCase.Steps.Any(s => s.Kind == "concurrent");

    /// <summary>
    /// Adds one or two concurrent steps (in most cases of the Threads feature, not with a second configuration: a file
    /// opened again is cut), before the last call to each repository; a case with one thread gets a second.
    /// </summary>
    public static void Add(OracleCase oracleCase, Random random, bool threads)
    {
        if (!threads || oracleCase.Reconfigured != null || random.Next(100) >= 70)
        {
            return;
        }

        if (oracleCase.Threads.Count == 1)
        {
            oracleCase.Threads.Add(new ThreadSpec { Kind = ThreadKind.Named, Name = "producer-1", Culture = oracleCase.Threads[0].Culture });
        }

        int witnesses = oracleCase.Trees.Count;
        for (int number = 1, steps = 1 + random.Next(2); number <= steps; number++)
        {
            // Threads whose marks differ: all pool threads have one name, and a name of digits is written as an id.
            var marks = new HashSet<string>();
            var candidates = Enumerable.Range(0, oracleCase.Threads.Count).OrderBy(_ => random.Next()).Where(t => marks.Add(MarkOf(oracleCase.Threads[t], t))).ToList();
            int count = 2 + random.Next(Math.Min(3, candidates.Count - 1));
            var spec = new ConcurrentSpec { Number = number };
            foreach (int thread in candidates.Take(count))
            {
                // Tens to a thousand and a half calls each, most of them short bursts.
                spec.Producers.Add(new ConcurrentProducer { Thread = thread, Logger = Loggers[random.Next(Loggers.Length)], Count = (int)Math.Pow(10, 1 + (random.NextDouble() * 2.2)) });
            }

            var step = new StepSpec { Kind = "concurrent", Repo = random.Next(oracleCase.Trees.Count), Thread = spec.Producers[0].Thread, Together = spec };
            oracleCase.Steps.Insert(random.Next(oracleCase.Steps.Count - witnesses + 1), step);
        }

        Prepare(oracleCase);
    }

    private static string MarkOf(ThreadSpec thread, int index) => thread.Kind switch
    {
        ThreadKind.Unnamed => "unnamed-" + index.ToString(CultureInfo.InvariantCulture),
        ThreadKind.Named when !thread.Name.All(char.IsAsciiDigit) => "named " + thread.Name,
        _ => "id or pool",
    };

    /// <summary>
    /// Makes the trees of a case with a concurrent step comparable event by event (again after each change the
    /// shrinker makes): the mark first in every layout; UTF-8 (the marks are found in its bytes); no footer (written
    /// after the last event, whichever thread wrote it); no roll (which events a file holds would depend on the
    /// interleaving).
    /// </summary>
    public static void Prepare(OracleCase oracleCase)
    {
        if (!Applies(oracleCase))
        {
            return;
        }

        foreach (TreeSpec tree in oracleCase.Trees)
        {
            tree.Mark = Mark;
            foreach (ChildSpec child in tree.Children)
            {
                child.Kind = child.Kind == ChildKind.RollingBuffered ? ChildKind.Buffered : child.Kind == ChildKind.Log4netRolling ? ChildKind.Log4netFile : child.Kind;
                child.Encoding = child.Encoding is null or "utf-8" ? child.Encoding : null;
                child.Footer = null;
            }
        }
    }

    /// <summary>
    /// Runs a concurrent step: each producer's burst on its thread, all released by one barrier; then flushes the
    /// repository's buffering appenders, so that every event of the step is written (or queued) within the step.
    /// </summary>
    public static void Run(Producers producers, StepSpec step, RunContext context, bool fixedTime)
    {
        ConcurrentSpec spec = step.Together!;
        int count = spec.Producers.Count;

        // Loggers are looked up here: the context's cache is not for several threads.
        ILog[] logs = spec.Producers.Select(p => context.Logger(step.Repo, p.Logger)).ToArray();
        using var barrier = new Barrier(count);
        var errors = new Exception?[count];
        var helpers = new Thread[count];
        for (int j = 0; j < count; j++)
        {
            int index = j;
            ConcurrentProducer producer = spec.Producers[j];
            long time = fixedTime ? step.Time + (index * TimeSpan.TicksPerMillisecond) : 0;
            helpers[j] = new Thread(() =>
            {
                try
                {
                    producers.Run(producer.Thread, time, () =>
                    {
                        barrier.SignalAndWait(TimeSpan.FromSeconds(20));
                        RunBurst(logs[index], spec.Number, producer);
                    });
                }
                catch (Exception exception)
                {
                    errors[index] = exception;
                }
            }) { IsBackground = true, Name = "oracle-together" };
            helpers[j].Start();
        }

        foreach (Thread helper in helpers)
        {
            helper.Join();
        }

        foreach (BufferingAppenderSkeleton buffering in logs[0].Logger.Repository!.GetAppenders().OfType<BufferingAppenderSkeleton>())
        {
            buffering.Flush();
        }

        if (errors.FirstOrDefault(e => e != null) is { } error)
        {
            ExceptionDispatchInfo.Throw(error);
        }
    }

    /// <summary>
    /// A burst: mostly INFO and DEBUG (which Discard may drop), some WARN and ERROR; now and then a message of two lines
    /// or an exception, so that an event spans several lines.
    /// </summary>
    private static void RunBurst(ILog log, int number, ConcurrentProducer producer)
    {
        Exception exception = ExceptionMaker.Create("inner");
        for (int i = 0; i < producer.Count; i++)
        {
            string id = $"«{number}.{producer.Thread}.{i}»";
            string message = i % 11 == 3 ? $"together {i}\n  and a second line {id}" : $"together {i} {id}";
            bool withException = i % 17 == 5;
            switch (Levels[(i + producer.Thread) % Levels.Length])
            {
                case "Debug": if (withException) log.Debug(message, exception); else log.Debug(message); break;
                case "Info": if (withException) log.Info(message, exception); else log.Info(message); break;
                case "Warn": if (withException) log.Warn(message, exception); else log.Warn(message); break;
                default: if (withException) log.Error(message, exception); else log.Error(message); break;
            }
        }
    }

    public static string BurstCSharp(string target, int number, int count) =>
        $"for (int i = 0; i < {count}; i++) {target}.<Info, Info, Debug, Info, Warn, Info, Error by (i + thread) % 7>("
        + $"i % 11 == 3 ? $\"together {{i}}\\n  and a second line «{number}.{{thread}}.{{i}}»\" : $\"together {{i}} «{number}.{{thread}}.{{i}}»\", "
        + "i % 17 == 5 ? ExceptionMaker.Create(\"inner\") : null);";

    /// <summary>Smaller versions of a concurrent step for the shrinker: fewer threads, fewer calls.</summary>
    public static IEnumerable<ConcurrentSpec> Smaller(ConcurrentSpec spec)
    {
        for (int j = 0; j < spec.Producers.Count && spec.Producers.Count > 1; j++)
        {
            yield return spec.With(spec.Producers.Where((_, k) => k != j).ToList());
        }

        if (spec.Producers.Any(p => p.Count > 10))
        {
            yield return spec.With(spec.Producers.Select(p => new ConcurrentProducer { Thread = p.Thread, Logger = p.Logger, Count = Math.Max(1, p.Count / 4) }).ToList());
        }
    }
}
