using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>Arguments, messages and text.</summary>
public sealed partial class OracleGenerator
{
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
