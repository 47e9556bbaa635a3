using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Text;
using log4net;
using log4net.Core;
using log4net.Layout;
using log4net.Repository;
using log4net.Util;
using LowLatencyLog.Appender;
using LowLatencyLog.Capture;
using LowLatencyLog.Files;
using LowLatencyLog.Forwarding;
using LowLatencyLog.Tests.Support;

namespace LowLatencyLog.Tests.Layout;

/// <summary>
/// Renders events through a <see cref="BufferedFileAppender"/> over a memory stream, with the fast layout path on or
/// off, and builds the events the differential suites feed it.
/// </summary>
internal static class LayoutHarness
{
    public static readonly ILoggerRepository Repository = LogManager.CreateRepository("lll-layout-" + Guid.NewGuid().ToString("N"));

    public static PatternLayout Pattern(string pattern)
    {
        var layout = new PatternLayout(pattern);
        layout.ActivateOptions();
        return layout;
    }

    /// <summary>The appender's bytes for the events; <paramref name="fast"/> null leaves the setting unset (its default).</summary>
    public static byte[] Render(
        ILayout layout, string? fast, string? encoding, IReadOnlyList<LoggingEvent> events, bool batch = false, Action<BufferedFileAppender>? configure = null) =>
        Render(layout, fast, encoding, events, out _, batch, configure);

    public static byte[] Render(
        ILayout layout, string? fast, string? encoding, IReadOnlyList<LoggingEvent> events, out bool usedFastPath, bool batch = false,
        Action<BufferedFileAppender>? configure = null)
    {
        var stream = new RecordingStream();
        BufferedFileAppender appender = NewAppender(layout, fast, encoding, stream);
        configure?.Invoke(appender);
        appender.ActivateOptions();
        usedFastPath = appender.UsesFastLayout;
        if (batch)
        {
            appender.DoAppend(events.ToArray());
        }
        else
        {
            foreach (LoggingEvent loggingEvent in events)
            {
                appender.DoAppend(loggingEvent);
            }
        }

        appender.Close();
        return stream.ToArray();
    }

    /// <summary>
    /// The appender's bytes for a batch of captured events handed over as an async appender's worker hands them
    /// (<see cref="ICapturedEventAppender"/>); <paramref name="taken"/> false means it left them to the rebuilt path.
    /// </summary>
    public static byte[] RenderCaptured(
        ILayout layout, string? encoding, CapturedEvent[] captured, out bool taken, Action<BufferedFileAppender>? configure = null,
        Func<IFileSystem, BufferedFileAppender>? create = null, string? fast = null)
    {
        var stream = new RecordingStream();
        BufferedFileAppender appender = NewAppender(layout, fast, encoding, stream, create);
        configure?.Invoke(appender);
        appender.ActivateOptions();
        taken = ((ICapturedEventAppender)appender).Target?.TryAppend(captured, captured.Length) == true;
        appender.Close();
        return stream.ToArray();
    }

    /// <summary>A file appender over <paramref name="stream"/>, not yet activated.</summary>
    public static BufferedFileAppender NewAppender(
        ILayout layout, string? fast, string? encoding, RecordingStream stream, Func<IFileSystem, BufferedFileAppender>? create = null)
    {
        var files = new TestFiles(open: (path, append) => stream, exists: path => true);
        BufferedFileAppender appender = create != null ? create(files) : new BufferedFileAppender(files);
        appender.Name = "layout-test";
        appender.File = "injected.log";
        appender.AppendToFile = "false";
        appender.FastLayout = fast;
        appender.Encoding = encoding;
        appender.Layout = layout;
        return appender;
    }

    /// <summary>An event with every field given (as an async appender's worker rebuilds it), at an injected instant.</summary>
    public static LoggingEvent Data(
        DateTime utc, string? message = "hello", Level? level = null, string logger = "App.Orders.Service", string? thread = "worker-1",
        string? exception = null, IDictionary<string, object?>? properties = null, string? domain = "domain.exe")
    {
        var dictionary = new PropertiesDictionary();
        if (properties != null)
        {
            foreach (KeyValuePair<string, object?> p in properties)
            {
                dictionary[p.Key] = p.Value;
            }
        }

        var data = new LoggingEventData
        {
            LoggerName = logger,
            Level = level ?? Level.Info,
            Message = message,
            ThreadName = thread,
            TimeStampUtc = utc,
            ExceptionString = exception,
            Properties = dictionary,
            Domain = domain,
            UserName = "user",
            Identity = "",
        };
        return new LoggingEvent(typeof(LayoutHarness), Repository, data, FixFlags.All);
    }

    /// <summary>A live event, as a logger makes it: the message object is rendered lazily.</summary>
    public static LoggingEvent Live(object? message, Level? level = null, string logger = "App.Orders.Service", Exception? exception = null)
    {
        var loggingEvent = new LoggingEvent(typeof(LayoutHarness), Repository, logger, level ?? Level.Warn, message, exception);
        loggingEvent.Properties["aKey"] = "live value";
        loggingEvent.Properties["num"] = 42;
        return loggingEvent;
    }

    public static Exception Thrown()
    {
        try
        {
            throw new InvalidOperationException("boom é 😀", new ArgumentException("inner"));
        }
        catch (Exception ex)
        {
            return ex;
        }
    }

    /// <summary>Events covering messages, levels, loggers, threads, exceptions and properties, at varied instants.</summary>
    public static List<LoggingEvent> Variety(Random random)
    {
        string[] messages =
        {
            "plain message", "", "unicode é ß 中文 😀 surrogate pair \uD83D\uDE00 end", new string('x', 3000) + "😀",
            "line one\nline two\r\nthree", "tab\there", "trailing space ",
            "ends on a high half \uD83D", "\uDE00 starts on a low half", "a broken \uDE00\uD83D pair",
        };
        Level[] levels = { Level.Debug, Level.Info, Level.Warn, Level.Error, Level.Fatal, Level.Trace, Level.Verbose, Level.Notice, Level.Critical, Level.Alert, Level.Emergency, Level.Severe, Level.Fine, Level.Finer, Level.Finest, Level.All, Level.Off };
        string[] loggers = { "App.Orders.Service", "Root", "a", "a.b", "a.b.", ".lead", "x..y", "App.Üñí.Çödé", "Deep.Name.Space.With.Many.Parts", "" };
        string?[] threads = { "worker-1", "17", "", null, "名前 😀", "a thread with a long name, longer than thirty chars", "half \uD83D" };
        var events = new List<LoggingEvent>();
        for (int i = 0; i < 40; i++)
        {
            var properties = new Dictionary<string, object?> { ["aKey"] = "value " + i, ["num"] = i, ["NDC"] = i % 3 == 0 ? "ctx outer ctx inner" : null };
            events.Add(Data(
                RandomInstant(random),
                message: i % 9 == 8 ? null : messages[random.Next(messages.Length)],
                level: levels[random.Next(levels.Length)],
                logger: loggers[random.Next(loggers.Length)],
                thread: threads[random.Next(threads.Length)],
                exception: i % 5 == 0 ? "System.Exception: text é\n   at Somewhere()" : null,
                properties: properties,
                domain: i % 4 == 0 ? "ドメイン" : "domain.exe"));
        }

        events.Add(Live("live string"));
        events.Add(Live(new SystemStringFormat(CultureInfo.InvariantCulture, "formatted {0} and {1:N2}", "arg", 1234.5)));
        events.Add(Live(new SystemStringFormat(CultureInfo.InvariantCulture, "bad format {0} {1}", "only one")));
        events.Add(Live(null));
        events.Add(Live(12345));
        events.Add(Live(new[] { 1, 2, 3 }));
        events.Add(Live("with exception", Level.Error, exception: Thrown()));
        events.Add(Live("dotted logger", Level.Info, logger: "Only.Two"));
        return events;
    }

    /// <summary>A random UTC instant from 1970 to 2100, often close to a second, millisecond, midnight or year boundary.</summary>
    public static DateTime RandomInstant(Random random)
    {
        long ticks = new DateTime(1970, 1, 1).Ticks + (long)(random.NextDouble() * (new DateTime(2100, 1, 1).Ticks - new DateTime(1970, 1, 1).Ticks));
        switch (random.Next(6))
        {
            case 0:
                ticks -= ticks % TimeSpan.TicksPerSecond; // on a second
                break;
            case 1:
                ticks -= ticks % TimeSpan.TicksPerMillisecond; // on a millisecond
                break;
            case 2:
                ticks = ticks - ticks % TimeSpan.TicksPerDay + (random.Next(2) == 0 ? -1 : 0); // midnight or a tick before
                break;
            case 3:
                int year = new DateTime(ticks).Year;
                ticks = new DateTime(year, 1, 1).Ticks - random.Next(3); // new year
                break;
        }

        return new DateTime(ticks, DateTimeKind.Utc);
    }

    public static string Describe(byte[] expected, byte[] actual, Encoding encoding)
    {
        int at = 0;
        while (at < expected.Length && at < actual.Length && expected[at] == actual[at])
        {
            at++;
        }

        string Around(byte[] bytes) => encoding.GetString(bytes, Math.Max(0, at - 60) & ~3, Math.Min(bytes.Length, at + 60) - (Math.Max(0, at - 60) & ~3));
        return $"first difference at byte {at} of {expected.Length}/{actual.Length}\nlayout: {Around(expected)}\nfast:   {Around(actual)}";
    }
}
