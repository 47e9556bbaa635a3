using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using BenchmarkDotNet.Exporters;
using BenchmarkDotNet.Loggers;
using BenchmarkDotNet.Reports;
using LowLatencyLog.Benchmarks.Csv;

namespace LowLatencyLog.Benchmarks.EndToEnd;

/// <summary>
/// Writes <c>&lt;Suite&gt;-throughput.csv</c> into BenchmarkDotNet's results folder in the plain schema of
/// <see cref="ThroughputCsv"/> (numbers without units or grouping), which the chart tool and <c>--quick</c> share.
/// </summary>
internal sealed class ThroughputCsvExporter : IExporter
{
    public static readonly ThroughputCsvExporter Instance = new ThroughputCsvExporter();

    public string Name => "lll-throughput-csv";

    public void ExportToLog(Summary summary, ILogger logger)
    {
    }

    public IEnumerable<string> ExportToFiles(Summary summary, ILogger consoleLogger)
    {
        var rows = new List<ThroughputRow>();
        foreach (BenchmarkReport report in summary.Reports)
        {
            double? nanoseconds = report.ResultStatistics?.Mean;
            if (nanoseconds is not > 0)
            {
                continue;
            }

            var benchmarkCase = report.BenchmarkCase;
            string suite = benchmarkCase.Descriptor.Type.Name.Replace("Benchmarks", "");
            rows.Add(new ThroughputRow(
                suite,
                Convert.ToString(benchmarkCase.Parameters["Case"], CultureInfo.InvariantCulture) ?? "",
                Convert.ToString(benchmarkCase.Parameters["Kind"], CultureInfo.InvariantCulture) ?? "",
                Convert.ToInt32(benchmarkCase.Parameters["Producers"], CultureInfo.InvariantCulture),
                1e9 / nanoseconds.Value,
                nanoseconds.Value,
                report.GcStats.GetBytesAllocatedPerOperation(benchmarkCase) ?? -1));
        }

        foreach (var suite in rows.GroupBy(r => r.Suite))
        {
            string path = Path.Combine(summary.ResultsDirectoryPath, suite.Key + "-throughput.csv");
            ThroughputCsv.Write(path, suite);
            yield return path;
        }
    }
}
