using System;
using System.IO;
using System.Linq;
using System.Text.RegularExpressions;
using System.Threading;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>
/// One configured logging pipeline writing into a folder of its own: any number of threads call <see cref="Log"/>,
/// then <see cref="Stop"/> shuts it down the way an application does at exit, which is the moment every accepted event
/// must be on disk. <see cref="Delivered"/> then says how many arrived.
/// </summary>
internal abstract class BenchSession : IDisposable
{
    private bool _stopped;

    protected BenchSession(string folder, MessageKind kind)
    {
        Folder = folder;
        Kind = kind;
    }

    public string Folder { get; }

    /// <summary>What every call logs.</summary>
    public MessageKind Kind { get; }

    /// <summary>
    /// One call of <see cref="Kind"/>; <paramref name="i"/> is the calling thread's own count, from 0. Called from
    /// many threads at once.
    /// </summary>
    public abstract void Log(int i);

    /// <summary>Shuts the pipeline down: drains queues, flushes and closes files. Later calls do nothing.</summary>
    public void Stop()
    {
        if (!_stopped)
        {
            _stopped = true;
            OnStop();
        }
    }

    /// <summary>
    /// Events that reached the end of the pipeline: lines in every file of the folder, unless overridden. Throws when
    /// the first line is not the line every case must write, so that a layout drifting apart is noticed.
    /// </summary>
    public virtual long Delivered()
    {
        LineCounter.CheckFirstLine(Folder, Kind);
        return LineCounter.CountEvents(Folder);
    }

    public void Dispose()
    {
        Stop();
        try
        {
            Directory.Delete(Folder, recursive: true);
        }
        catch (IOException)
        {
            // A file still open elsewhere: the temp folder is cleaned by the OS eventually.
        }
        catch (UnauthorizedAccessException)
        {
        }
    }

    protected abstract void OnStop();

    /// <summary>A new empty folder under the temp path (or under <c>LLL_BENCH_DIR</c> to put the files on another disk).</summary>
    public static string NewFolder()
    {
        string root = Environment.GetEnvironmentVariable("LLL_BENCH_DIR") is { Length: > 0 } dir ? dir : Path.GetTempPath();
        string folder = Path.Combine(root, "lll-bench-" + Guid.NewGuid().ToString("N"));
        Directory.CreateDirectory(folder);
        return folder;
    }
}

/// <summary>What every case logs, so that every framework writes the same line.</summary>
internal static class BenchMessage
{
    /// <summary>A constant string: no framework formats arguments, so the comparison is about the pipeline.</summary>
    public const string Text = LowLatencyLog.Benchmarks.CallSites.InterceptedCalls.Constant;

    /// <summary>The logger (category) name every case uses.</summary>
    public const string Logger = "Bench";

    /// <summary>log4net's layout; the alternatives are configured to write the same columns.</summary>
    public const string Log4netPattern = "%date [%thread] %-5level %logger - %message%newline";
}

internal static class LineCounter
{
    /// <summary>
    /// log4net's "%date [%thread] %-5level %logger - %message" for an unnamed thread, with the kind's message at any
    /// count (a file that rolled starts anywhere), or the mix's error line.
    /// </summary>
    private static Regex ExpectedLine(MessageKind kind)
    {
        string logger = Regex.Escape(BenchMessage.Logger);
        string message = Regex.Escape(MessageKinds.Text(kind, 0)).Replace(Regex.Escape("Order 0 "), Regex.Escape("Order ") + @"\d+" + Regex.Escape(" "));
        string line = "INFO  " + logger + " - " + message;
        if (kind == MessageKind.Mixed)
        {
            line = "(?:" + line + "|ERROR " + logger + " - " + Regex.Escape(MessageKinds.ErrorText) + ")";
        }

        return new Regex(@"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d,\d{3} \[\d+\] " + line + "$");
    }

    public static void CheckFirstLine(string folder, MessageKind kind)
    {
        string? file = Directory.EnumerateFiles(folder, "*", SearchOption.AllDirectories).OrderBy(f => f, StringComparer.Ordinal).FirstOrDefault();
        if (file == null)
        {
            throw new InvalidOperationException($"No file was written in {folder}.");
        }

        string first;
        using (var reader = new StreamReader(new FileStream(file, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete)))
        {
            first = reader.ReadLine() ?? "";
        }

        if (!ExpectedLine(kind).IsMatch(first))
        {
            throw new InvalidOperationException($"{file} starts with a line not in the benchmark's layout: \"{first}\"");
        }
    }

    /// <summary>
    /// Complete lines that start with a digit (the date every layout begins with) in every file of the folder, rolled
    /// backups included: one per event, whereas an exception's text adds lines of its own that start otherwise.
    /// </summary>
    public static long CountEvents(string folder)
    {
        long events = 0;
        var buffer = new byte[1 << 16];
        foreach (string file in Directory.EnumerateFiles(folder, "*", SearchOption.AllDirectories))
        {
            using var stream = new FileStream(file, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete);
            bool lineStart = true;
            bool eventLine = false;
            int read;
            while ((read = stream.Read(buffer, 0, buffer.Length)) > 0)
            {
                Span<byte> span = buffer.AsSpan(0, read);
                int newline;
                while ((newline = span.IndexOf((byte)'\n')) >= 0)
                {
                    if (lineStart ? newline > 0 && char.IsAsciiDigit((char)span[0]) : eventLine)
                    {
                        events++;
                    }

                    lineStart = true;
                    span = span.Slice(newline + 1);
                }

                if (span.Length > 0)
                {
                    // A line that goes on in the next read.
                    eventLine = lineStart ? char.IsAsciiDigit((char)span[0]) : eventLine;
                    lineStart = false;
                }
            }
        }

        return events;
    }
}

/// <summary>Logs nothing; counts the calls so that the harness's delivery check still holds.</summary>
internal sealed class NoLoggingSession : BenchSession
{
    private long _calls;

    public NoLoggingSession(MessageKind kind)
        : base(NewFolder(), kind)
    {
    }

    public override void Log(int i) => Interlocked.Increment(ref _calls);

    public override long Delivered() => Interlocked.Read(ref _calls);

    protected override void OnStop()
    {
    }
}
