using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>File options, filters, arguments, messages and text.</summary>
public sealed partial class OracleGenerator
{
    private static readonly string[] Encodings = { "utf-8", "utf-16", "utf-16BE", "utf-32", "us-ascii", "iso-8859-1" };
    private static readonly string[] LockingModels = { "ExclusiveLock", "MinimalLock", "InterProcessLock", "NoLock" };

    private void FileOptions(ChildSpec child, bool any)
    {
        if (!Has(OracleFeature.FileOptions) || !any)
        {
            return;
        }

        // Dates and thread ids are found in UTF-8 only: other encodings where they compare as written.
        // A file opened again in another encoding would not end its last line with the byte 0x0A that ours looks for.
        child.Encoding = Chance(40) ? (_fixedTime && !_unnamed && !_reconfigure ? Pick(Encodings) : "utf-8") : null;
        child.Header = Chance(30) ? Pick(new[] { "== header é ==&#10;", "H&#13;&#10;", "[h]" }) : null;
        child.Footer = Chance(30) ? Pick(new[] { "== footer 😀 ==&#10;", "F&#10;", "[f]" }) : null;
        if (_endLines)
        {
            child.Header = child.Header is "[h]" ? "[h]&#10;" : child.Header;
            child.Footer = child.Footer is "[f]" ? "[f]&#10;" : child.Footer;
        }

        child.Locking = Chance(40) ? Pick(LockingModels) : null;
        if ((child.Header != null || child.Footer != null) && !child.Pattern.EndsWith("%newline", StringComparison.Ordinal))
        {
            // Ours starts a header or footer after a line left open on a new line (log4net writes it on): lines end.
            child.Pattern += "%newline";
        }
    }

    private List<FilterSpec> Filters(bool stringMatch = true)
    {
        var filters = new List<FilterSpec>();
        int count = _random.Next(1, 3);
        for (int i = 0; i < count; i++)
        {
            filters.Add(Chance(50) || !stringMatch
                ? new FilterSpec { Kind = "LevelRange", Min = Chance(70) ? Pick(ConfigLevels.Skip(1).Take(5).ToArray()) : null, Max = Chance(50) ? Pick(ConfigLevels.Skip(2).Take(4).ToArray()) : null, Accept = Chance(50) }
                : new FilterSpec { Kind = "StringMatch", Match = Pick(new[] { "e", "nested", "1", "order", "self", "impure", "😀" }), Accept = Chance(50) });
        }

        if (Chance(50))
        {
            filters.Add(new FilterSpec { Kind = "DenyAll" });
        }

        return filters;
    }

    private ArgSpec Arg()
    {
        var kinds = new List<string> { "value", "value", "value", "value" };
        if (Has(OracleFeature.Reentrant))
        {
            kinds.Add("self");
            kinds.Add("selfFormattable");
        }

        if (Has(OracleFeature.Mutated))
        {
            kinds.Add("builder");
            kinds.Add("builder");
        }

        if (Has(OracleFeature.Impure))
        {
            kinds.Add("impure");
            kinds.Add("impure");
        }

        if (Has(OracleFeature.Throwing))
        {
            kinds.Add("throws");
            kinds.Add("nullToString");
        }

        string kind = Pick(kinds);
        if (kind == "builder")
        {
            return new ArgSpec { Kind = "builder", Text = Text(20) };
        }

        if (kind != "value")
        {
            return new ArgSpec { Kind = kind };
        }

        return ArgSpec.Of(_random.Next(9) switch
        {
            0 => _random.Next(int.MinValue, int.MaxValue),
            1 => (long)_random.Next() * _random.Next(),
            2 => Math.Round(_random.NextDouble() * 1e6, 3),
            3 => (decimal)_random.Next() / 1000m,
            4 => new DateTime(2000 + _random.Next(50), _random.Next(1, 13), _random.Next(1, 28), _random.Next(24), _random.Next(60), 0),
            5 => _random.Next(2) == 0,
            6 => null,
            _ => Text(30),
        });
    }

    private string Text(int max, bool huge = false)
    {
        if ((huge || Has(OracleFeature.Huge)) && (huge || Chance(5)))
        {
            int length = _random.Next(20_000, 300_000);
            return Chance(50) ? new string((char)('a' + _random.Next(26)), length) : string.Concat(Enumerable.Repeat("é😀中", length / 4));
        }

        const string plain = "abcdefghij klmnop ABC 0123456789.,;-_";
        const string wide = "é中日本ßØ\u0301\u00a0\u200b";
        string[] nonBmp = { "😀", "𝄞", "\uD800", "\uDFFF", "\u0000", "\u001b", "\uFFFE", "\r\n" };
        var text = new StringBuilder();
        int count = _random.Next(0, max + 1);
        for (int i = 0; i < count; i++)
        {
            int pick = _random.Next(20);
            if (Has(OracleFeature.NonBmp) && pick < 3)
            {
                text.Append(Pick(nonBmp));
            }
            else if (pick < 5)
            {
                text.Append(wide[_random.Next(wide.Length)]);
            }
            else
            {
                text.Append(plain[_random.Next(plain.Length)]);
            }
        }

        return text.ToString();
    }
}
