using System;
using System.IO;
using LowLatencyLog.Benchmarks.Csv;

namespace LowLatencyLog.Charts;

/// <summary>
/// Draws PNG charts from the CSV files the benchmarks write; kept out of the library's and the benchmarks' builds
/// (its plotting packages are needed by nothing else).
/// </summary>
internal static class Program
{
    private static int Main(string[] args)
    {
        if (args.Length > 0 && (args[0] == "--help" || args[0] == "-h"))
        {
            Console.WriteLine(
                "dotnet run -c Release --project tools/LowLatencyLog.Charts -- [csv folder] [png folder]   throughput and latency charts " +
                $"(default folder {ChartCommand.DefaultResults})" + Environment.NewLine +
                "dotnet run -c Release --project tools/LowLatencyLog.Charts -- soak <soak csv> [png folder]   memory and queue depth of a soak run");
            return 0;
        }

        if (args.Length > 0 && args[0] == "soak")
        {
            if (args.Length < 2 || !File.Exists(args[1]))
            {
                Console.Error.WriteLine("soak: name the CSV that --soak wrote.");
                return 2;
            }

            string output = args.Length > 2 ? args[2] : Path.GetDirectoryName(Path.GetFullPath(args[1]))!;
            Directory.CreateDirectory(output);
            foreach (string png in ChartCommand.Soak(args[1], SoakCsv.Header, output))
            {
                Console.WriteLine("chart: " + png);
            }

            return 0;
        }

        return ChartCommand.Run(args);
    }
}
