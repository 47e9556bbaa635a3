using System;
using System.Linq;
using System.Text;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Support;

/// <summary>What the configuration fuzz suites share: hostile text and readable case names.</summary>
internal static class FuzzText
{
    /// <summary>
    /// Letters, digits, punctuation, quotes, XML-looking and non-ASCII characters, starting or ending with a letter no
    /// setting accepts there. As a date pattern it holds no month, day or time letter, so it never changes within a
    /// month (or is not a format at all): it is invalid for every setting.
    /// </summary>
    public static string Random(Random random)
    {
        const string pool = "abcxyzQ0123456789 ,|-+.<>&\"'/\\éß中\u00a0";
        var text = new StringBuilder("Q");
        int length = random.Next(0, 40);
        for (int i = 0; i < length; i++)
        {
            text.Append(pool[random.Next(pool.Length)]);
        }

        return random.Next(2) == 0 ? text.ToString() : new string(text.ToString().Reverse().ToArray()) + "Q";
    }

    /// <summary>One fuzz case, named so that a failure says which appender, setting and value.</summary>
    public static TestCaseData Case(string typeName, string setting, string value, bool expectError) =>
        new TestCaseData(typeName, setting, value, expectError)
            .SetName($"{typeName}.{setting}=\"{Describe(value)}\"");

    private static string Describe(string value)
    {
        string shown = new string(value.Select(c => char.IsControl(c) ? '?' : c).Take(24).ToArray());
        return value.Length > 24 ? shown + $"…({value.Length})" : shown;
    }
}
