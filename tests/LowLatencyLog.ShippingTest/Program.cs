using System;
using System.Collections.Generic;
using System.Globalization;

namespace LowLatencyLog.ShippingTest;

/// <summary>
/// The application side of <c>.ci/shipping-test</c>. Commands:
/// <list type="bullet">
/// <item><c>write --file F --run R [--appender ours|log4net] [--rate N] [--seconds S] [--producers P] [--max-size 1MB]
/// [--backups K] [--style Composite|Size] [--clock-epoch UNIXSECONDS --clock-speed X [--clock-hold]]</c>: logs numbered events at a
/// paced rate through a BoundedQueueAsyncAppender into a rolling file appender, and prints <c>EXPECT R:P:N</c>.</item>
/// <item><c>check --file F --expect R:P:N [--expect ...] [--report]</c>: reads what the central instance wrote and
/// checks that every event arrived once, in each producer's order (with <c>--report</c>, only counts).</item>
/// <item><c>latency --dir D --syslog-port P --run R [--rate N] [--seconds S]</c>: the caller's latency through an
/// async appender into a file alone, then into a file and log4net's RemoteSyslogAppender (UDP to 127.0.0.1:P).</item>
/// </list>
/// Exits 0 on success, 1 on a failed check, 2 on bad arguments.
/// </summary>
public static class Program
{
    public static int Main(string[] args)
    {
        if (args.Length == 0)
        {
            Console.Error.WriteLine("usage: write|check|latency --option value ...");
            return 2;
        }

        Options options;
        try
        {
            options = Options.Parse(args, 1);
        }
        catch (ArgumentException ex)
        {
            Console.Error.WriteLine(ex.Message);
            return 2;
        }

        switch (args[0])
        {
            case "write":
                return Writer.Run(options);
            case "check":
                return Checker.Run(options);
            case "latency":
                return LatencyRun.Run(options);
            default:
                Console.Error.WriteLine($"unknown command {args[0]}");
                return 2;
        }
    }
}

/// <summary><c>--name value</c> pairs; a name may repeat; a flag without a value reads as "true".</summary>
public sealed class Options
{
    private readonly Dictionary<string, List<string>> _values = new Dictionary<string, List<string>>(StringComparer.Ordinal);

    public static Options Parse(string[] args, int from)
    {
        var options = new Options();
        for (int i = from; i < args.Length; i++)
        {
            if (!args[i].StartsWith("--", StringComparison.Ordinal))
            {
                throw new ArgumentException($"expected --name, got {args[i]}");
            }

            string name = args[i].Substring(2);
            string value = i + 1 < args.Length && !args[i + 1].StartsWith("--", StringComparison.Ordinal) ? args[++i] : "true";
            if (!options._values.TryGetValue(name, out List<string>? list))
            {
                options._values[name] = list = new List<string>();
            }

            list.Add(value);
        }

        return options;
    }

    public string Get(string name, string? fallback = null) =>
        _values.TryGetValue(name, out List<string>? list) ? list[^1] : fallback ?? throw new ArgumentException($"--{name} is required");

    public IReadOnlyList<string> All(string name) => _values.TryGetValue(name, out List<string>? list) ? list : Array.Empty<string>();

    public bool Has(string name) => _values.ContainsKey(name);

    public int Int(string name, int fallback) => Has(name) ? int.Parse(Get(name), CultureInfo.InvariantCulture) : fallback;

    public double Double(string name, double fallback) => Has(name) ? double.Parse(Get(name), CultureInfo.InvariantCulture) : fallback;
}
