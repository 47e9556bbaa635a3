using System;
using System.Collections.Generic;
using System.Linq;
using System.Text;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>How two runs' files are normalized and compared.</summary>
internal static class OracleCompare
{
    private const byte DateOpen0 = 0xE2, DateOpen1 = 0x9F, DateOpen2 = 0xA6, DateClose2 = 0xA7; // ⟦ and ⟧ in UTF-8

    private static readonly byte[] StackOpen = Encoding.ASCII.GetBytes("<stackTrace>");
    private static readonly byte[] StackClose = Encoding.ASCII.GetBytes("</stackTrace>");

    /// <summary>
    /// With the clock of the running process (no fixed event times), each run of digits between ⟦ and ⟧ (where the
    /// patterns put dates and timestamps) becomes one <c>#</c>: the format, separators and zone still compare. The
    /// stack frames in log4net's text for an object it could not render (between <c>&lt;stackTrace&gt;</c> tags)
    /// depend on what the JIT inlined by then: only the exception's first line is kept.
    /// </summary>
    internal static byte[] Normalize(byte[] bytes, bool maskDates = true) => DropFrames(maskDates ? MaskDateDigits(bytes) : bytes);

    private static byte[] DropFrames(byte[] bytes)
    {
        var output = new List<byte>(bytes.Length);
        int at = 0;
        while (true)
        {
            int open = IndexOf(bytes, StackOpen, at);
            int close = open < 0 ? -1 : IndexOf(bytes, StackClose, open);
            if (close < 0)
            {
                output.AddRange(new ArraySegment<byte>(bytes, at, bytes.Length - at));
                return output.ToArray();
            }

            int lineEnd = Array.IndexOf(bytes, (byte)'\n', open, close - open);
            int keep = lineEnd < 0 ? close : lineEnd;
            output.AddRange(new ArraySegment<byte>(bytes, at, keep - at));
            at = close;
        }
    }

    private static int IndexOf(byte[] bytes, byte[] value, int start)
    {
        return bytes.AsSpan(start).IndexOf(value) is var i && i >= 0 ? start + i : -1;
    }

    private static byte[] MaskDateDigits(byte[] bytes)
    {
        var output = new List<byte>(bytes.Length);
        bool inside = false;
        for (int i = 0; i < bytes.Length; i++)
        {
            if (i + 2 < bytes.Length && bytes[i] == DateOpen0 && bytes[i + 1] == DateOpen1 && (bytes[i + 2] == DateOpen2 || bytes[i + 2] == DateClose2))
            {
                inside = bytes[i + 2] == DateOpen2;
                output.Add(bytes[i]);
                output.Add(bytes[i + 1]);
                output.Add(bytes[i + 2]);
                i += 2;
                continue;
            }

            if (inside && bytes[i] is >= (byte)'0' and <= (byte)'9')
            {
                if (output.Count == 0 || output[^1] != (byte)'#')
                {
                    output.Add((byte)'#');
                }

                continue;
            }

            inside &= bytes[i] != (byte)'\n';
            output.Add(bytes[i]);
        }

        return output.ToArray();
    }

    /// <summary>Replaces each key of <paramref name="names"/> written between ⟪ and ⟫ by its value, another number by "id".</summary>
    internal static byte[] MapThreads(byte[] bytes, Dictionary<string, string> names)
    {
        byte[] open = Encoding.UTF8.GetBytes("⟪"), close = Encoding.UTF8.GetBytes("⟫");
        var output = new List<byte>(bytes.Length);
        int at = 0;
        while (true)
        {
            int start = IndexOf(bytes, open, at);
            int end = start < 0 ? -1 : IndexOf(bytes, close, start + open.Length);
            if (end < 0)
            {
                output.AddRange(new ArraySegment<byte>(bytes, at, bytes.Length - at));
                return output.ToArray();
            }

            string inside = Encoding.ASCII.GetString(bytes, start + open.Length, Math.Min(end - start - open.Length, 12));
            output.AddRange(new ArraySegment<byte>(bytes, at, start + open.Length - at));
            at = start + open.Length;
            if (end - at <= 12 && (names.TryGetValue(inside, out string? name) || (inside.Length > 0 && inside.All(char.IsAsciiDigit))))
            {
                // A thread id of no producer (a pool thread's) stays a number.
                output.AddRange(Encoding.UTF8.GetBytes(name ?? "id"));
                at = end;
            }
        }
    }

    /// <summary>Lines in a file, a last line without its newline counted.</summary>
    internal static int CountLines(byte[] bytes)
    {
        int lines = bytes.Count(b => b == (byte)'\n');
        return bytes.Length > 0 && bytes[^1] != (byte)'\n' ? lines + 1 : lines;
    }

    internal static string? Difference(byte[] expected, byte[] actual)
    {
        int length = Math.Min(expected.Length, actual.Length);
        int at = 0;
        while (at < length && expected[at] == actual[at])
        {
            at++;
        }

        if (at == length && expected.Length == actual.Length)
        {
            return null;
        }

        int lineStart = at;
        while (lineStart > 0 && expected[lineStart - 1] != (byte)'\n' && at - lineStart < 200)
        {
            lineStart--;
        }

        return $"differs at byte {at} (oracle {expected.Length} B, ours {actual.Length} B), line {Count(expected, at) + 1}:"
            + Environment.NewLine + "  oracle: " + Show(expected, lineStart)
            + Environment.NewLine + "  ours:   " + Show(actual, lineStart);
    }

    private static int Count(byte[] bytes, int end)
    {
        int lines = 0;
        for (int i = 0; i < end; i++)
        {
            lines += bytes[i] == (byte)'\n' ? 1 : 0;
        }

        return lines;
    }

    internal static string Show(byte[] bytes, int start)
    {
        if (start >= bytes.Length)
        {
            return "(end of file)";
        }

        string text = Encoding.UTF8.GetString(bytes, start, Math.Min(400, bytes.Length - start));
        return ArgSpec.Literal(text);
    }

    /// <summary>
    /// log4net's internal warnings and errors in a form both sides share: the appender names and the types that
    /// report differ, so only the text after the last "]: " (or the whole text) is kept, each side's folder the same.
    /// </summary>
    internal static string InternalKey(string message)
    {
        int at = message.LastIndexOf("]: ", StringComparison.Ordinal);
        message = at < 0 ? message : message.Substring(at + 3);
        return System.Text.RegularExpressions.Regex.Replace(message, "lll-[0-9a-f]{32}", "lll-{dir}"); // each side's folder (Log4netHarness)
    }
}
