using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;

namespace LowLatencyLog.Benchmarks.Csv;

/// <summary>
/// One throughput measurement: a case and message kind with a number of producers. -1 where a command does not
/// measure a column: <see cref="AllocatedBytesPerEvent"/> (every thread) comes from BenchmarkDotNet's memory diagnoser,
/// <see cref="ProducerBytesPerCall"/> (the calling threads only) and the collections from the commands' own runs.
/// </summary>
internal sealed record ThroughputRow(
    string Suite, string Case, string Kind, int Producers, double EventsPerSecond, double NanosecondsPerEvent, long AllocatedBytesPerEvent,
    double ProducerBytesPerCall = -1, int Gen0 = -1, int Gen1 = -1, int Gen2 = -1);

/// <summary>
/// Per-call latency percentiles of one case and message kind at one rate, in microseconds, with the bytes each
/// producer thread allocated per call and the collections during the case.
/// </summary>
internal sealed record LatencyRow(
    string Case, string Kind, string Metric, int Rate, int Producers, long Count,
    double P50, double P90, double P99, double P999, double P9999, double Max,
    double ProducerBytesPerCall, int Gen0, int Gen1, int Gen2);

/// <summary>The throughput CSV every throughput command writes and the chart tool (tools/LowLatencyLog.Charts) reads.</summary>
internal static class ThroughputCsv
{
    public const string Header = "suite,case,kind,producers,events_per_second,ns_per_event,allocated_bytes_per_event,producer_bytes_per_call,gen0,gen1,gen2";

    public static void Write(string path, IEnumerable<ThroughputRow> rows)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
        using var writer = new StreamWriter(path);
        writer.WriteLine(Header);
        foreach (ThroughputRow r in rows)
        {
            writer.WriteLine(string.Join(",",
                r.Suite, r.Case, r.Kind, r.Producers.ToString(CultureInfo.InvariantCulture),
                r.EventsPerSecond.ToString("F0", CultureInfo.InvariantCulture),
                r.NanosecondsPerEvent.ToString("F1", CultureInfo.InvariantCulture),
                r.AllocatedBytesPerEvent.ToString(CultureInfo.InvariantCulture),
                r.ProducerBytesPerCall.ToString("F1", CultureInfo.InvariantCulture),
                r.Gen0.ToString(CultureInfo.InvariantCulture),
                r.Gen1.ToString(CultureInfo.InvariantCulture),
                r.Gen2.ToString(CultureInfo.InvariantCulture)));
        }
    }

    public static IEnumerable<ThroughputRow> Read(string path)
    {
        foreach (string[] f in CsvFile.Rows(path, Header))
        {
            yield return new ThroughputRow(f[0], f[1], f[2], Int(f[3]), Num(f[4]), Num(f[5]), long.Parse(f[6], CultureInfo.InvariantCulture),
                Num(f[7]), Int(f[8]), Int(f[9]), Int(f[10]));
        }
    }

    private static int Int(string s) => int.Parse(s, CultureInfo.InvariantCulture);

    private static double Num(string s) => double.Parse(s, CultureInfo.InvariantCulture);
}

/// <summary>The latency CSV <c>--latency</c> writes and the chart tool reads.</summary>
internal static class LatencyCsv
{
    public const string Header = "case,kind,metric,rate,producers,count,p50_us,p90_us,p99_us,p99_9_us,p99_99_us,max_us,producer_bytes_per_call,gen0,gen1,gen2";

    public static void Write(string path, IEnumerable<LatencyRow> rows)
    {
        Directory.CreateDirectory(Path.GetDirectoryName(Path.GetFullPath(path))!);
        using var writer = new StreamWriter(path);
        writer.WriteLine(Header);
        foreach (LatencyRow r in rows)
        {
            writer.WriteLine(string.Join(",",
                new[] { r.Case, r.Kind, r.Metric, r.Rate.ToString(CultureInfo.InvariantCulture), r.Producers.ToString(CultureInfo.InvariantCulture), r.Count.ToString(CultureInfo.InvariantCulture) }
                .Concat(new[] { r.P50, r.P90, r.P99, r.P999, r.P9999, r.Max, r.ProducerBytesPerCall }.Select(v => v.ToString("F2", CultureInfo.InvariantCulture)))
                .Concat(new[] { r.Gen0, r.Gen1, r.Gen2 }.Select(v => v.ToString(CultureInfo.InvariantCulture)))));
        }
    }

    public static IEnumerable<LatencyRow> Read(string path)
    {
        foreach (string[] f in CsvFile.Rows(path, Header))
        {
            double N(int i) => double.Parse(f[i], CultureInfo.InvariantCulture);
            int I(int i) => int.Parse(f[i], CultureInfo.InvariantCulture);
            yield return new LatencyRow(f[0], f[1], f[2], I(3), I(4), long.Parse(f[5], CultureInfo.InvariantCulture),
                N(6), N(7), N(8), N(9), N(10), N(11), N(12), I(13), I(14), I(15));
        }
    }
}

internal static class CsvFile
{
    /// <summary>The fields of each data line, or nothing when the file's header is not <paramref name="header"/>.</summary>
    public static IEnumerable<string[]> Rows(string path, string header)
    {
        string[] lines = File.ReadAllLines(path);
        if (lines.Length == 0 || lines[0].Trim() != header)
        {
            yield break;
        }

        int columns = header.Split(',').Length;
        foreach (string line in lines.Skip(1).Where(l => l.Length > 0))
        {
            string[] fields = line.Split(',');
            if (fields.Length != columns)
            {
                throw new FormatException($"{path}: expected {columns} fields: {line}");
            }

            yield return fields;
        }
    }

    public static bool HasHeader(string path, string header)
    {
        using var reader = new StreamReader(path);
        return reader.ReadLine()?.Trim() == header;
    }
}

/// <summary>The soak CSV (<c>--soak</c>): one row a second per overflow mode.</summary>
internal static class SoakCsv
{
    public const string Header = "mode,second,working_set_mb,gc_heap_mb,gen0,gen1,gen2,queue_depth,sent,delivered,discarded";
}

/// <summary>An events-per-second figure as the tables and charts print it.</summary>
internal static class RateText
{
    public static string Format(double eventsPerSecond) => eventsPerSecond >= 1e6
        ? (eventsPerSecond / 1e6).ToString("F2", CultureInfo.InvariantCulture) + " M/s"
        : (eventsPerSecond / 1e3).ToString("F0", CultureInfo.InvariantCulture) + " k/s";
}
