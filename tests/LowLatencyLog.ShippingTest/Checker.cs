using System;
using System.Collections;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;

namespace LowLatencyLog.ShippingTest;

/// <summary>
/// Reads the lines the central instance wrote and checks, for each expected run and producer, that every sequence
/// number arrived exactly once and in order.
/// </summary>
public static class Checker
{
    public static int Run(Options options)
    {
        var expected = new Dictionary<(int Run, int Producer), long>();
        foreach (string spec in options.All("expect"))
        {
            string[] parts = spec.Split(':');
            int run = int.Parse(parts[0], CultureInfo.InvariantCulture);
            int producers = int.Parse(parts[1], CultureInfo.InvariantCulture);
            long count = long.Parse(parts[2], CultureInfo.InvariantCulture);
            for (int p = 0; p < producers; p++)
            {
                expected[(run, p)] = count;
            }
        }

        var seen = expected.ToDictionary(e => e.Key, e => new BitArray(checked((int)e.Value)));
        var last = expected.ToDictionary(e => e.Key, _ => -1L);
        long received = 0, duplicates = 0, outOfOrder = 0, unexpected = 0;
        foreach (string path in options.All("file"))
        {
            if (!File.Exists(path))
            {
                continue;
            }

            foreach (string line in File.ReadLines(path))
            {
                if (!Events.TryParse(line, out int run, out int producer, out long sequence))
                {
                    continue;
                }

                var key = (run, producer);
                if (!seen.TryGetValue(key, out BitArray? bits))
                {
                    continue; // another run's events share the file
                }

                received++;
                if (sequence >= bits.Length)
                {
                    unexpected++;
                    continue;
                }

                if (bits[(int)sequence])
                {
                    duplicates++;
                    continue;
                }

                bits[(int)sequence] = true;
                if (sequence < last[key])
                {
                    outOfOrder++;
                }

                last[key] = sequence;
            }
        }

        // Missing events in runs of consecutive numbers: a file the shipper never opened is one long run per producer.
        long gaps = 0, longest = 0;
        foreach (var pair in seen)
        {
            long run = 0;
            for (int i = 0; i <= pair.Value.Length; i++)
            {
                if (i < pair.Value.Length && !pair.Value[i])
                {
                    run++;
                    continue;
                }

                if (run > 0)
                {
                    gaps++;
                    longest = Math.Max(longest, run);
                }

                run = 0;
            }
        }

        long total = expected.Values.Sum();
        long unique = received - duplicates - unexpected;
        long missing = total - unique;
        foreach (var group in expected.Keys.GroupBy(k => k.Run).OrderBy(g => g.Key))
        {
            long runMissing = group.Sum(k => expected[k] - seen[k].Cast<bool>().Count(b => b));
            Console.WriteLine($"  run {group.Key}: {group.Sum(k => expected[k]):N0} sent, {runMissing:N0} missing");
        }

        Console.WriteLine($"RESULT sent={total} received={received} missing={missing} duplicates={duplicates} outOfOrder={outOfOrder} unexpected={unexpected} gaps={gaps} longestGap={longest}");
        if (options.Has("report"))
        {
            return 0;
        }

        return missing == 0 && duplicates == 0 && outOfOrder == 0 && unexpected == 0 ? 0 : 1;
    }
}
