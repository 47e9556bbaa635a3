using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using ScottPlot;
using ScottPlot.TickGenerators;

using LowLatencyLog.Benchmarks.Csv;

namespace LowLatencyLog.Charts;

/// <summary>
/// <c>[csv folder] [png folder]</c>: PNG charts from the CSV files the benchmarks write. Every
/// <c>*-throughput.csv</c> gives a chart of events/s against producers (one line per case); <c>latency*.csv</c> gives
/// one chart of response-time percentiles per rate and producer count (one line per case). Both value axes are
/// logarithmic: the cases differ by orders of magnitude.
/// </summary>
internal static class ChartCommand
{
    /// <summary>Where the benchmarks write their CSV files, from the repository's root.</summary>
    public const string DefaultResults = "BenchmarkDotNet.Artifacts/results";

    private const int Width = 1100;
    private const int Height = 620;

    public static int Run(string[] args)
    {
        string input = args.Length > 0 ? args[0] : DefaultResults;
        string output = args.Length > 1 ? args[1] : input;
        if (!Directory.Exists(input))
        {
            Console.Error.WriteLine($"No folder {input}: run a suite first, or name the folder holding the CSV files.");
            return 2;
        }

        Directory.CreateDirectory(output);
        var written = new List<string>();
        foreach (string csv in Directory.GetFiles(input, "*.csv").OrderBy(f => f, StringComparer.Ordinal))
        {
            if (CsvFile.HasHeader(csv, ThroughputCsv.Header))
            {
                foreach (var suite in ThroughputCsv.Read(csv).GroupBy(r => (r.Suite, r.Kind)))
                {
                    written.Add(Throughput(suite.Key.Suite, suite.Key.Kind, suite.ToArray(), output));
                }
            }
            else if (CsvFile.HasHeader(csv, LatencyCsv.Header))
            {
                string name = Path.GetFileNameWithoutExtension(csv);
                foreach (var run in LatencyCsv.Read(csv).Where(r => r.Metric == "response").GroupBy(r => (r.Kind, r.Rate, r.Producers)))
                {
                    written.Add(Latency(name, run.Key.Kind, run.Key.Rate, run.Key.Producers, run.ToArray(), output));
                }
            }
        }

        foreach (string png in written)
        {
            Console.WriteLine("chart: " + png);
        }

        if (written.Count == 0)
        {
            Console.Error.WriteLine($"No throughput or latency CSV in {input}.");
            return 1;
        }

        return 0;
    }

    private static string Throughput(string suite, string kind, ThroughputRow[] rows, string output)
    {
        var plot = NewPlot(rows.Select(r => r.Case).Distinct().Count());
        int[] producers = rows.Select(r => r.Producers).Distinct().OrderBy(p => p).ToArray();
        foreach (var byCase in rows.GroupBy(r => r.Case))
        {
            ThroughputRow[] points = byCase.OrderBy(r => r.Producers).ToArray();
            var line = plot.Add.Scatter(
                points.Select(r => Math.Log2(r.Producers)).ToArray(),
                points.Select(r => Math.Log10(r.EventsPerSecond)).ToArray());
            Style(line, byCase.Key);
        }

        plot.Axes.Bottom.TickGenerator = new NumericManual(
            producers.Select(p => Math.Log2(p)).ToArray(),
            producers.Select(p => p.ToString(CultureInfo.InvariantCulture)).ToArray());
        plot.Axes.Left.TickGenerator = LogTicks(rows.Select(r => r.EventsPerSecond), RateText.Format);
        plot.Title($"{suite}, {kind}: events/s end to end (log scale)");
        plot.XLabel("producer threads");
        plot.YLabel("events per second, all lines on disk");
        Pad(plot);
        string path = Path.Combine(output, $"{suite}-{kind}-throughput.png");
        plot.SavePng(path, Width, Height);
        return path;
    }

    private static string Latency(string name, string kind, int rate, int producers, LatencyRow[] rows, string output)
    {
        string[] labels = { "p50", "p90", "p99", "p99.9", "p99.99", "max" };
        var plot = NewPlot(rows.Length);
        foreach (LatencyRow row in rows)
        {
            double[] values = { row.P50, row.P90, row.P99, row.P999, row.P9999, row.Max };
            var line = plot.Add.Scatter(
                Enumerable.Range(0, values.Length).Select(i => (double)i).ToArray(),
                values.Select(v => Math.Log10(Math.Max(v, 0.01))).ToArray());
            Style(line, row.Case);
        }

        plot.Axes.Bottom.TickGenerator = new NumericManual(Enumerable.Range(0, labels.Length).Select(i => (double)i).ToArray(), labels);
        plot.Axes.Left.TickGenerator = LogTicks(rows.SelectMany(r => new[] { r.P50, r.P90, r.P99, r.P999, r.P9999, r.Max }).Select(v => Math.Max(v, 0.01)), FormatMicroseconds);
        plot.Title(string.Format(CultureInfo.InvariantCulture, "{0} response time at {1:N0} events/s from {2} producers (log scale)", kind, rate, producers));
        plot.XLabel("percentile");
        plot.YLabel("latency from when the call was due");
        Pad(plot);
        string path = Path.Combine(output, $"{name}-{kind}-{rate}-{producers}p.png");
        plot.SavePng(path, Width, Height);
        return path;
    }

    /// <summary>
    /// Two charts from a soak CSV (<c>--soak</c>): working set and GC heap over time, and queue depth over time, one
    /// line per overflow mode. Linear axes: the point is to see whether anything grows.
    /// </summary>
    public static IEnumerable<string> Soak(string csv, string header, string output)
    {
        string name = Path.GetFileNameWithoutExtension(csv);
        var rows = CsvFile.Rows(csv, header).ToArray();
        (string Title, string YLabel, string File, (int Column, string Label)[] Series)[] charts =
        {
            ("Soak: memory at full rate, 4 producers", "MB", $"{name}-memory.png", new[] { (2, "working set"), (3, "GC heap") }),
            ("Soak: async queue depth at full rate, 4 producers", "events queued", $"{name}-queue.png", new[] { (7, "queue depth") }),
        };
        foreach (var chart in charts)
        {
            string[] modes = rows.Select(r => r[0]).Distinct().ToArray();
            var plot = NewPlot(modes.Length * chart.Series.Length);
            foreach (string mode in modes)
            {
                string[][] points = rows.Where(r => r[0] == mode).ToArray();
                foreach ((int column, string label) in chart.Series)
                {
                    var line = plot.Add.Scatter(
                        points.Select(r => double.Parse(r[1], CultureInfo.InvariantCulture)).ToArray(),
                        points.Select(r => double.Parse(r[column], CultureInfo.InvariantCulture)).ToArray());
                    Style(line, $"{label}, overflow={mode}");
                    line.MarkerSize = 0;
                }
            }

            plot.Title(chart.Title);
            plot.XLabel("seconds into the mode");
            plot.YLabel(chart.YLabel);
            Pad(plot);
            string path = Path.Combine(output, chart.File);
            plot.SavePng(path, Width, Height);
            yield return path;
        }
    }

    private static Plot NewPlot(int series)
    {
        var plot = new Plot();
        // Ten clearly different colours while they suffice; more, less distinct ones beyond.
        plot.Add.Palette = series <= 10 ? new ScottPlot.Palettes.Category10() : new ScottPlot.Palettes.Tsitsulin();
        plot.ShowLegend(Edge.Right);
        return plot;
    }

    private static void Style(ScottPlot.Plottables.Scatter line, string label)
    {
        line.LegendText = label;
        line.LineWidth = 2;
        line.MarkerSize = 7;
    }

    private static void Pad(Plot plot)
    {
        plot.Axes.AutoScale();
        AxisLimits limits = plot.Axes.GetLimits();
        double xPad = Math.Max(0.15, (limits.Right - limits.Left) * 0.04);
        double yPad = Math.Max(0.1, (limits.Top - limits.Bottom) * 0.06);
        plot.Axes.SetLimits(limits.Left - xPad, limits.Right + xPad, limits.Bottom - yPad, limits.Top + yPad);
    }

    /// <summary>
    /// Ticks at 1, 2 and 5 times each power of ten covering <paramref name="values"/> (plotted as log10), labelled with
    /// the value itself: on a log axis one labelled tick per decade leaves too few to read a value off.
    /// </summary>
    private static NumericManual LogTicks(IEnumerable<double> values, Func<double, string> format)
    {
        double[] logs = values.Where(v => v > 0).Select(Math.Log10).ToArray();
        var ticks = new NumericManual();
        if (logs.Length == 0)
        {
            return ticks;
        }

        for (int decade = (int)Math.Floor(logs.Min()) - 1; decade <= (int)Math.Ceiling(logs.Max()); decade++)
        {
            foreach (double step in new[] { 1.0, 2.0, 5.0 })
            {
                double value = step * Math.Pow(10, decade);
                ticks.AddMajor(Math.Log10(value), format(value));
            }
        }

        return ticks;
    }

    private static string FormatMicroseconds(double us) => us >= 1_000_000
        ? (us / 1_000_000).ToString("0.#", CultureInfo.InvariantCulture) + " s"
        : us >= 1000 ? (us / 1000).ToString("0.#", CultureInfo.InvariantCulture) + " ms"
        : us >= 1 ? us.ToString("0.#", CultureInfo.InvariantCulture) + " µs"
        : (us * 1000).ToString("0", CultureInfo.InvariantCulture) + " ns";
}
