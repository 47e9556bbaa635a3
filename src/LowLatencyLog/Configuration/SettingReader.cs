using System;
using System.Globalization;
using System.Linq;
using System.Text;

namespace LowLatencyLog.Configuration;

/// <summary>
/// Reads a setting's text into a typed value. A bad value is reported (the setting, the value given, what is accepted,
/// the default used) and the documented default is returned, so a typo never makes log4net drop the whole appender
/// the way a throwing property conversion does.
/// </summary>
/// <remarks>A setting that was not given (<c>null</c>) silently takes its default; an empty or blank one is an error.</remarks>
internal static class SettingReader
{
    /// <summary>A whole number from <paramref name="minimum"/> to <paramref name="maximum"/>.</summary>
    public static int Integer(
        string setting, string? text, int defaultValue, int minimum, int maximum, Action<string> reportError, bool powerOfTwo = false)
    {
        if (text == null)
        {
            return defaultValue;
        }

        string accepted = $"a whole number from {minimum} to {maximum}" + (powerOfTwo ? " that is a power of two" : "");
        if (!int.TryParse(text.Trim(), NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int value) ||
            value < minimum || value > maximum || (powerOfTwo && (value & (value - 1)) != 0))
        {
            reportError(Message(setting, text, accepted, defaultValue.ToString(CultureInfo.InvariantCulture)));
            return defaultValue;
        }

        return value;
    }

    /// <summary>One name of <typeparamref name="TEnum"/> (case-insensitive), not a number, not one of <paramref name="excluded"/>.</summary>
    public static TEnum Name<TEnum>(string setting, string? text, TEnum defaultValue, Action<string> reportError, params TEnum[] excluded)
        where TEnum : struct, Enum =>
        Read(setting, text, defaultValue, reportError, numbers: false, excluded);

    /// <summary>
    /// One name of <typeparamref name="TEnum"/> (case-insensitive) or the number of a defined one: what log4net's
    /// Enum.Parse conversion takes for a setting it types as the enum, so a log4net configuration moves over as it is.
    /// </summary>
    public static TEnum NameOrNumber<TEnum>(string setting, string? text, TEnum defaultValue, Action<string> reportError)
        where TEnum : struct, Enum =>
        Read(setting, text, defaultValue, reportError, numbers: true, Array.Empty<TEnum>());

    private static TEnum Read<TEnum>(string setting, string? text, TEnum defaultValue, Action<string> reportError, bool numbers, TEnum[] excluded)
        where TEnum : struct, Enum
    {
        if (text == null)
        {
            return defaultValue;
        }

        string[] names = Enum.GetNames(typeof(TEnum))
            .Where(n => !excluded.Contains((TEnum)Enum.Parse(typeof(TEnum), n)))
            .ToArray();
        string trimmed = text.Trim();
        string? match = names.FirstOrDefault(n => string.Equals(n, trimmed, StringComparison.OrdinalIgnoreCase));
        if (match != null)
        {
            return (TEnum)Enum.Parse(typeof(TEnum), match);
        }

        long[] values = names.Select(n => Convert.ToInt64(Enum.Parse(typeof(TEnum), n), CultureInfo.InvariantCulture)).ToArray();
        if (numbers && long.TryParse(trimmed, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long number) &&
            values.Contains(number))
        {
            return (TEnum)Enum.ToObject(typeof(TEnum), number);
        }

        string accepted = "one of " + string.Join(", ", names) +
            (numbers ? ", or the number of one (" + string.Join(", ", values.Select(v => v.ToString(CultureInfo.InvariantCulture))) + ")" : "");
        reportError(Message(setting, text, accepted, defaultValue.ToString()));
        return defaultValue;
    }

    /// <summary>
    /// A combination of <typeparamref name="TEnum"/> flags: names (case-insensitive) separated by commas or <c>|</c>,
    /// or one number made only of defined flags (log4net users write FixFlags as <c>268</c>).
    /// </summary>
    public static TEnum Flags<TEnum>(string setting, string? text, TEnum defaultValue, Action<string> reportError)
        where TEnum : struct, Enum
    {
        if (text == null)
        {
            return defaultValue;
        }

        string[] names = Enum.GetNames(typeof(TEnum));
        long defined = Enum.GetValues(typeof(TEnum)).Cast<object>().Aggregate(0L, (all, v) => all | Convert.ToInt64(v, CultureInfo.InvariantCulture));
        string accepted = "names from " + string.Join(", ", names) + " separated by commas, or a number made of those flags";
        string[] tokens = text.Split(new[] { ',', '|' }).Select(t => t.Trim()).ToArray();
        long result = 0;
        foreach (string token in tokens)
        {
            string? name = names.FirstOrDefault(n => string.Equals(n, token, StringComparison.OrdinalIgnoreCase));
            if (name != null)
            {
                result |= Convert.ToInt64(Enum.Parse(typeof(TEnum), name), CultureInfo.InvariantCulture);
            }
            else if (tokens.Length == 1 && long.TryParse(token, NumberStyles.None, CultureInfo.InvariantCulture, out long number) && (number & ~defined) == 0)
            {
                result = number;
            }
            else
            {
                string which = tokens.Length > 1 ? $" (\"{token}\" is not a flag)" : "";
                reportError(Message(setting, text, accepted + which, defaultValue.ToString()));
                return defaultValue;
            }
        }

        return (TEnum)Enum.ToObject(typeof(TEnum), result);
    }

    /// <summary>The names a boolean setting accepts, as log4net's own conversion (case-insensitive).</summary>
    internal enum Switch
    {
        False,
        True,
    }

    public static bool Boolean(string setting, string? text, bool defaultValue, Action<string> reportError) =>
        Name(setting, text, defaultValue ? Switch.True : Switch.False, reportError) == Switch.True;

    /// <summary>
    /// A size in bytes as log4net's <c>maximumFileSize</c> takes it: a whole number, optionally followed by KB, MB or
    /// GB (powers of 1024, case-insensitive; the first of them found cuts the text there, so what follows the unit is
    /// ignored, as log4net does).
    /// </summary>
    public static long Size(string setting, string? text, long defaultValue, Action<string> reportError)
    {
        if (text == null)
        {
            return defaultValue;
        }

        string s = text.Trim().ToUpperInvariant();
        long multiplier = 1;
        foreach ((string suffix, long factor) in new[] { ("KB", 1024L), ("MB", 1024L * 1024), ("GB", 1024L * 1024 * 1024) })
        {
            int at = s.IndexOf(suffix, StringComparison.Ordinal);
            if (at >= 0)
            {
                multiplier = factor;
                s = s.Substring(0, at).Trim();
                break;
            }
        }

        if (!long.TryParse(s, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out long value) ||
            value > long.MaxValue / multiplier || value < long.MinValue / multiplier)
        {
            reportError(Message(
                setting, text, "a whole number of bytes, optionally followed by KB, MB or GB (e.g. 10MB)",
                defaultValue.ToString(CultureInfo.InvariantCulture)));
            return defaultValue;
        }

        return value * multiplier;
    }

    /// <summary>An encoding by the name <see cref="Encoding.GetEncoding(string)"/> knows (as log4net's conversion).</summary>
    public static Encoding Encoding(string setting, string? text, Encoding defaultValue, string defaultName, Action<string> reportError)
    {
        if (text == null)
        {
            return defaultValue;
        }

        try
        {
            return System.Text.Encoding.GetEncoding(text.Trim());
        }
        catch (Exception ex) when (ex is ArgumentException || ex is NotSupportedException)
        {
            reportError(Message(
                setting, text, "an encoding name such as utf-8, utf-16, utf-16BE, utf-32, us-ascii or iso-8859-1", defaultName));
            return defaultValue;
        }
    }

    /// <summary>The one wording of a bad value: the setting, the value given, what is accepted, the default used.</summary>
    public static string Message(string setting, string text, string accepted, string defaultValue) =>
        $"Setting '{setting}' has the value \"{Shorten(text)}\", which is not valid. Accepted: {accepted}. Using the default, {defaultValue}.";

    // A hostile value (megabytes of text) must not flood the internal log.
    private static string Shorten(string text) => text.Length <= 200 ? text : text.Substring(0, 200) + "…";
}
