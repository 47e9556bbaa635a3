using System;
using System.IO;
using System.Reflection;
using System.Text;
using log4net;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using log4net.Repository.Hierarchy;
using LowLatencyLog.Appender;
using LowLatencyLog.Files;
using LowLatencyLog.Text;

namespace LowLatencyLog.KillTarget;

/// <summary>
/// Writes numbered events into a file, in batches of varying size, and prints "flushed N" after each batch, forever.
/// The test kills it at some point. <c>KillTarget path</c> writes through <see cref="EventBufferWriter"/>;
/// <c>KillTarget appender kind path</c> logs through a file appender: <c>buffered</c> (BufferedFileAppender),
/// <c>rolling</c> (RollingBufferedFileAppender, size rolls, backups numbered upwards; <c>rolling-small</c> rolls every
/// few batches) or <c>forwarding</c>
/// (BufferedFileAppender behind log4net's BufferingForwardingAppender) or <c>async-TypeName</c> (BufferedFileAppender
/// behind one of our async appenders). <c>KillTarget exit asyncType fileKind path</c>: see <see cref="LogAndReturnWithoutShutdown"/>.
/// </summary>
public static class Program
{
    /// <summary>The text of event <paramref name="sequence"/>; the test rebuilds it to check each line.</summary>
    public static string EventText(long sequence) =>
        $"event {sequence} " + new string((char)('a' + (int)(sequence % 26)), (int)(sequence * 7 % 300)) + " ü😀\n";

    public static void Main(string[] args)
    {
        if (Environment.GetEnvironmentVariable("LLL_FAST_PATH") == "false")
        {
            // What MSBuild's LowLatencyLogFastPath=false sets: the async cases then take log4net's path.
            AppContext.SetSwitch("LowLatencyLog.FastPath", false);
        }

        if (args.Length == 3 && args[0] == "appender")
        {
            RunAppender(args[1], args[2]);
            return;
        }

        if (args.Length == 4 && args[0] == "exit")
        {
            LogAndReturnWithoutShutdown(args[1], args[2], args[3]);
            return;
        }

        if (args.Length == 4 && args[0] == "crash")
        {
            LogThenCrash(args[1], args[2], args[3]);
            return;
        }

        if (args.Length == 6 && args[0] == "share")
        {
            LogIntoSharedFile(args[1], args[2], args[3], int.Parse(args[4], System.Globalization.CultureInfo.InvariantCulture), args[5]);
            return;
        }

        if (args.Length == 2 && args[0] == "hold")
        {
            HoldTheSharedLockAndHang(args[1]);
            return;
        }

        if (args.Length == 3 && args[0] == "utc-start")
        {
            StartRollingByUtc(args[1], args[2]);
            return;
        }

        using var file = new FileStream(args[0], FileMode.Create, FileAccess.Write, FileShare.Read, 1);
        var writer = new EventBufferWriter(new UTF8Encoding(false), 4096) { Stream = file };
        long sequence = 0;
        for (int batch = 0; ; batch++)
        {
            int size = 1 + batch % 97;
            for (int i = 0; i < size; i++)
            {
                writer.Write(EventText(sequence++));
                writer.EndEvent();
            }

            writer.Flush();
            Report(sequence);
        }
    }

    private static void RunAppender(string kind, string path)
    {
        var repository = (Hierarchy)LogManager.CreateRepository("kill-target");
        var layout = new PatternLayout("%message%newline");
        layout.ActivateOptions();
        BufferedFileAppender file = kind.StartsWith("rolling", StringComparison.Ordinal)
            ? new RollingBufferedFileAppender
            {
                RollingStyle = "Size", MaximumFileSize = kind == "rolling-small" ? "16KB" : "256KB", MaxSizeRollBackups = "-1", CountDirection = "1",
            }
            : new BufferedFileAppender();
        file.File = path;
        file.Layout = layout;
        file.BufferSize = "16384";
        file.ActivateOptions();
        IAppender top = file;
        if (kind.StartsWith("async-", StringComparison.Ordinal))
        {
            // The real thing: an async appender of ours in front of the file appender.
            var async = (IAppender)Activator.CreateInstance(typeof(BufferedFileAppender).Assembly.GetType("LowLatencyLog.Appender." + kind.Substring(6), throwOnError: true)!)!;
            ((IAppenderAttachable)async).AddAppender(file);
            ((log4net.Core.IOptionHandler)async).ActivateOptions();
            top = async;
        }
        else if (kind == "forwarding")
        {
            var buffer = new BufferingForwardingAppender { BufferSize = 50, Lossy = false };
            buffer.AddAppender(file);
            buffer.ActivateOptions();
            top = buffer;
        }

        repository.Root.AddAppender(top);
        repository.Root.Level = Level.All;
        repository.Configured = true;
        ILog log = LogManager.GetLogger(repository.Name, "kill");

        long sequence = 0;
        if (kind.StartsWith("async-", StringComparison.Ordinal))
        {
            PrintPath(LeastBytesACall(log, () => Message(sequence++), 100));
        }

        for (int batch = 0; ; batch++)
        {
            int size = 1 + batch % 97;
            if (kind == "forwarding" || kind.StartsWith("async-", StringComparison.Ordinal))
            {
                for (int i = 0; i < 100; i++)
                {
                    log.Info(Message(sequence++));
                }

                if (top is IFlushable flushable && kind != "forwarding")
                {
                    // "flushed" means it: the async worker polls on a timer, so without this a kill could land before
                    // its first write. The next batch is logged while the worker writes the one before.
                    flushable.Flush(5000);
                }
            }
            else if (batch % 3 == 0)
            {
                // Single events, buffered, then an explicit flush.
                for (int i = 0; i < size; i++)
                {
                    log.Info(Message(sequence++));
                }

                file.Flush(5000);
            }
            else
            {
                // A batch, as an async appender's worker delivers it: written at its end.
                var events = new LoggingEvent[size];
                for (int i = 0; i < size; i++)
                {
                    events[i] = new LoggingEvent(typeof(Program), repository, "kill", Level.Info, Message(sequence++), null);
                }

                file.DoAppend(events);
            }

            Report(sequence);
        }
    }

    /// <summary>
    /// <c>exit asyncType fileKind path</c>: four threads log through the async appender into the file appender
    /// (configured from XML), then Main returns without <c>LogManager.Shutdown()</c>: log4net's process-exit hook must
    /// drain everything to the file. Prints "logged N" first.
    /// </summary>
    private static void LogAndReturnWithoutShutdown(string asyncType, string fileKind, string path)
    {
        string file = fileKind == "log4net"
            ? @"<appender name=""file"" type=""log4net.Appender.FileAppender""><immediateFlush value=""false"" />"
            : $@"<appender name=""file"" type=""LowLatencyLog.Appender.{fileKind}, LowLatencyLog"">";
        var xml = new System.Xml.XmlDocument();
        xml.LoadXml($@"<log4net>
              <appender name=""async"" type=""LowLatencyLog.Appender.{asyncType}, LowLatencyLog"">
                <appender-ref ref=""file"" />
              </appender>
              {file}
                <file value=""{path}"" />
                <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
              </appender>
              <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
            </log4net>");
        log4net.Config.XmlConfigurator.Configure(LogManager.GetRepository(typeof(Program).Assembly), xml.DocumentElement!);
        ILog log = LogManager.GetLogger(typeof(Program));
        const int threads = 4, perThread = 50_000, measured = 100;
        int m = 0;
        PrintPath(LeastBytesACall(log, () => "m " + m++, measured));
        var workers = new System.Threading.Thread[threads];
        for (int t = 0; t < threads; t++)
        {
            int producer = t;
            workers[t] = new System.Threading.Thread(() => LogNumbered(log, producer, perThread));
            workers[t].Start();
        }

        foreach (var worker in workers)
        {
            worker.Join();
        }

        Console.Out.WriteLine("logged " + (threads * perThread + measured));
        Console.Out.Flush();
    }

    /// <summary>
    /// <c>crash asyncType fileKind path</c>: a thread logs a burst through the async appender into the file appender and
    /// then throws, unhandled, right after its last call, while the worker still holds most of the burst (a second child
    /// takes 20 µs an event, so the worker is about a second behind): log4net's shutdown does not run on a crash, only
    /// the library's crash handler. Prints "logged N" first.
    /// </summary>
    private static void LogThenCrash(string asyncType, string fileKind, string path)
    {
        var xml = new System.Xml.XmlDocument();
        xml.LoadXml($@"<log4net>
              <appender name=""async"" type=""LowLatencyLog.Appender.{asyncType}, LowLatencyLog"">
                <bufferSize value=""65536"" />
                <!-- the slow child's type is unknown to fix=Auto, which would add the properties and log4net's path -->
                <fix value=""Message, ThreadName, Exception"" />
                <appender-ref ref=""file"" />
                <appender-ref ref=""slow"" />
              </appender>
              <appender name=""slow"" type=""LowLatencyLog.KillTarget.SlowAppender, LowLatencyLog.KillTarget"" />
              <appender name=""file"" type=""LowLatencyLog.Appender.{fileKind}, LowLatencyLog"">
                <file value=""{path}"" />
                <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%date [%thread] %-5level %logger - %message%newline"" /></layout>
              </appender>
              <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
            </log4net>");
        log4net.Config.XmlConfigurator.Configure(LogManager.GetRepository(typeof(Program).Assembly), xml.DocumentElement!);
        ILog log = LogManager.GetLogger(typeof(Program));
        const int events = 60_000, measured = 100;
        int m = 0;
        PrintPath(LeastBytesACall(log, () => "m " + m++, measured));
        Console.Out.WriteLine("logged " + (events + measured));
        Console.Out.Flush();
        var crashing = new System.Threading.Thread(() =>
        {
            LogOrders(log, events);
            throw new InvalidOperationException("the application's own bug");
        });
        crashing.Start();
        crashing.Join();
    }

    // The calls made on other threads, in ordinary methods: the call-site generator intercepts them there, not in a
    // lambda, so they take the fast path.
    private static void LogNumbered(ILog log, int producer, int count)
    {
        for (int i = 0; i < count; i++)
        {
            log.Info($"{producer} {i}");
        }
    }

    private static void LogOrders(ILog log, int count)
    {
        for (int i = 0; i < count; i++)
        {
            log.InfoFormat("order {0} filled", i);
        }
    }

    /// <summary>
    /// <c>share lockingModel fileKind path count tag</c>: logs <c>count</c> events "tag i ..." through a
    /// BoundedQueueAsyncAppender into the file appender, with log4net's <c>lockingModel</c> of that name (configured
    /// from XML as users write it), once a line arrives on standard input, then shuts log4net down. Prints "ready" first
    /// and "done" last.
    /// </summary>
    private static void LogIntoSharedFile(string model, string fileKind, string path, int count, string tag)
    {
        string rolling = fileKind == "RollingBufferedFileAppender"
            ? @"<rollingStyle value=""Size"" /><maximumFileSize value=""2MB"" /><maxSizeRollBackups value=""-1"" /><countDirection value=""1"" />"
            : "";
        // "log4net.FileAppender": log4net's own appender, as a process not yet migrated to this library runs it.
        string type = fileKind.StartsWith("log4net.", StringComparison.Ordinal)
            ? "log4net.Appender." + fileKind.Substring(8)
            : $"LowLatencyLog.Appender.{fileKind}, LowLatencyLog";
        var xml = new System.Xml.XmlDocument();
        xml.LoadXml($@"<log4net>
              <appender name=""async"" type=""LowLatencyLog.Appender.BoundedQueueAsyncAppender, LowLatencyLog"">
                <appender-ref ref=""file"" />
              </appender>
              <appender name=""file"" type=""{type}"">
                <file value=""{path}"" />
                <lockingModel type=""log4net.Appender.FileAppender+{model}"" />
                {rolling}
                <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
              </appender>
              <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
            </log4net>");
        log4net.Config.XmlConfigurator.Configure(LogManager.GetRepository(typeof(Program).Assembly), xml.DocumentElement!);
        ILog log = LogManager.GetLogger(typeof(Program));
        Console.Out.WriteLine("ready");
        Console.Out.Flush();
        Console.In.ReadLine();
        for (int i = 0; i < count; i++)
        {
            log.InfoFormat("{0} {1} {2}", tag, i, new string((char)('a' + i % 26), i * 7 % 200));
        }

        LogManager.Shutdown();
        Console.Out.WriteLine("done");
        Console.Out.Flush();
    }

    /// <summary>
    /// <c>hold path</c>: takes the lock the shared locking models take for <c>path</c>, appends "partial" (no line end)
    /// as a write cut short would leave it, prints "held" and waits to be killed without releasing the lock.
    /// </summary>
    private static void HoldTheSharedLockAndHang(string path)
    {
        var sharedLock = SharedLock.Create(path, rolling: false);
        sharedLock.Enter();
        using (var file = new FileStream(path, FileMode.Append, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete))
        {
            byte[] partial = Encoding.UTF8.GetBytes("partial");
            file.Write(partial, 0, partial.Length);
        }

        Console.Out.WriteLine("held");
        Console.Out.Flush();
        System.Threading.Thread.Sleep(System.Threading.Timeout.Infinite);
        GC.KeepAlive(sharedLock);
    }

    /// <summary>
    /// <c>utc-start theirs ours</c>: starts log4net's RollingFileAppender on <c>theirs/app.log</c> and ours on
    /// <c>ours/app.log</c>, both rolling by date in UTC (<c>UniversalDateTime</c>), logs "started" to each and shuts down;
    /// run with <c>TZ</c> set, to compare what each does with the files an earlier run left.
    /// </summary>
    private static void StartRollingByUtc(string theirs, string ours)
    {
        string Appender(string name, string type, string folder) => $@"
              <appender name=""{name}"" type=""{type}"">
                <file value=""{Path.Combine(folder, "app.log")}"" />
                <rollingStyle value=""Date"" />
                <datePattern value="".yyyy-MM-dd"" />
                <dateTimeStrategy type=""log4net.Appender.RollingFileAppender+UniversalDateTime"" />
                <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
              </appender>";
        var xml = new System.Xml.XmlDocument();
        xml.LoadXml($@"<log4net>
              {Appender("theirs", "log4net.Appender.RollingFileAppender", theirs)}
              {Appender("ours", "LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog", ours)}
              <root><level value=""ALL"" /><appender-ref ref=""theirs"" /><appender-ref ref=""ours"" /></root>
            </log4net>");
        log4net.Config.XmlConfigurator.Configure(LogManager.GetRepository(typeof(Program).Assembly), xml.DocumentElement!);
        LogManager.GetLogger(typeof(Program)).Info("started");
        LogManager.Shutdown();
        Console.Out.WriteLine("done " + TimeZoneInfo.Local.Id);
        Console.Out.Flush();
    }

    private static string Message(long sequence) => EventText(sequence).TrimEnd('\n');

    /// <summary>
    /// Logs <paramref name="calls"/> texts from <paramref name="next"/> and returns the fewest bytes one call allocated:
    /// none on the fast path (SPEC 22), log4net's event on its path.
    /// </summary>
    private static long LeastBytesACall(ILog log, Func<string> next, int calls)
    {
        long least = long.MaxValue;
        for (int i = 0; i < calls; i++)
        {
            string text = next();
            long before = GC.GetAllocatedBytesForCurrentThread();
            log.Info(text);
            least = Math.Min(least, GC.GetAllocatedBytesForCurrentThread() - before);
        }

        return least;
    }

    /// <summary>Tells the test which path the calls took (it checks it against what it asked for).</summary>
    private static void PrintPath(long leastBytes)
    {
        bool libraryHasIt = typeof(BufferedFileAppender).Assembly
            .GetCustomAttribute<System.Runtime.Versioning.TargetFrameworkAttribute>()?.FrameworkName
            .StartsWith(".NETCoreApp", StringComparison.Ordinal) == true;
        Console.Out.WriteLine($"least bytes a call {leastBytes}, library fast path {libraryHasIt}");
        Console.Out.Flush();
    }

    private static void Report(long sequence)
    {
        Console.Out.WriteLine("flushed " + sequence);
        Console.Out.Flush();
    }
}

/// <summary>A child that takes about 20 µs an event: it keeps the async appender's worker behind the application.</summary>
public sealed class SlowAppender : log4net.Appender.AppenderSkeleton
{
    protected override void Append(log4net.Core.LoggingEvent loggingEvent)
    {
        long until = System.Diagnostics.Stopwatch.GetTimestamp() + System.Diagnostics.Stopwatch.Frequency / 50_000;
        while (System.Diagnostics.Stopwatch.GetTimestamp() < until)
        {
        }
    }
}
