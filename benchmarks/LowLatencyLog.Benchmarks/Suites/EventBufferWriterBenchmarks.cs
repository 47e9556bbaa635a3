using System.IO;
using System.Text;
using BenchmarkDotNet.Attributes;
using BenchmarkDotNet.Configs;
using BenchmarkDotNet.Jobs;
using LowLatencyLog.Benchmarks.Cases;
using LowLatencyLog.Text;

namespace LowLatencyLog.Benchmarks;

/// <summary>
/// The writer under a pattern layout's load: 2 M events of 10 <c>Write(string)</c> calls each (the pieces of
/// <c>%date [%thread] %-5level %logger - %message%newline</c>) into <see cref="Stream.Null"/>, against a
/// <see cref="StreamWriter"/> with a 64 KB buffer. Time is per event.
/// </summary>
[Config(typeof(Config))]
[MemoryDiagnoser]
public class EventBufferWriterBenchmarks
{
    public const int Events = 2_000_000;

    private static readonly string[] Pieces =
    {
        "2026-11-22 10:00:00,123", " [", "worker-1", "] ", "INFO ", " ", "App.Orders.Service", " - ",
        "order 123456 accepted for customer 42", "\n",
    };

    private EventBufferWriter _ours = null!;
    private EventBufferWriter _oursThroughChars = null!;
    private StreamWriter _streamWriter = null!;

    [GlobalSetup]
    public void Setup()
    {
        _ours = new EventBufferWriter(new UTF8Encoding(false), 64 * 1024) { Stream = Stream.Null };
        _oursThroughChars = new EventBufferWriter(new CharBufferedUtf8(), 64 * 1024) { Stream = Stream.Null };
        _streamWriter = new StreamWriter(Stream.Null, new UTF8Encoding(false), 64 * 1024);
    }

    [Benchmark(Baseline = true, OperationsPerInvoke = Events)]
    public void StreamWriter64K()
    {
        StreamWriter writer = _streamWriter;
        string[] pieces = Pieces;
        for (int e = 0; e < Events; e++)
        {
            for (int i = 0; i < pieces.Length; i++)
            {
                writer.Write(pieces[i]);
            }
        }

        writer.Flush();
    }

    /// <summary>UTF-8 encoded as it is written, straight into the byte buffer (the writer's way with UTF-8).</summary>
    [Benchmark(OperationsPerInvoke = Events)]
    public void EventBufferWriter64K() => WriteAll(_ours);

    /// <summary>The same writes through the char buffer and one encoder call per chunk (the way of other encodings).</summary>
    [Benchmark(OperationsPerInvoke = Events)]
    public void EventBufferWriter64KCharBuffer() => WriteAll(_oursThroughChars);

    private static void WriteAll(EventBufferWriter writer)
    {
        string[] pieces = Pieces;
        for (int e = 0; e < Events; e++)
        {
            for (int i = 0; i < pieces.Length; i++)
            {
                writer.Write(pieces[i]);
            }

            writer.EndEvent();
        }

        writer.Flush();
    }

    /// <summary>The runtime's UTF-8 as a type of its own: the same bytes, through the writer's char buffer.</summary>
    private sealed class CharBufferedUtf8 : UTF8Encoding
    {
    }

    private sealed class Config : ManualConfig
    {
        public Config()
        {
            if (!Program.SmokeRun)
            {
                AddJob(Job.Default.WithPromptTiering().WithWarmupCount(2).WithIterationCount(8).WithLaunchCount(1));
            }
        }
    }
}
