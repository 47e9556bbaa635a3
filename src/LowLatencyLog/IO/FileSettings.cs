using System;
using System.Globalization;
using System.Text;
using LowLatencyLog.Core;

namespace LowLatencyLog.IO;

/// <summary>
/// Reads the file appenders' settings from their text, reporting a bad value (setting, value, what is accepted, the
/// default used) and falling back to the default, as <see cref="SettingReader"/> does for the others.
/// </summary>
internal static class FileSettings
{
    /// <summary>The names a boolean setting accepts, as log4net's own conversion (case-insensitive).</summary>
    internal enum Switch
    {
        False,
        True,
    }

    public static bool Boolean(string setting, string? text, bool defaultValue, Action<string> reportError) =>
        SettingReader.Name(setting, text, defaultValue ? Switch.True : Switch.False, reportError) == Switch.True;

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

    public static string Message(string setting, string text, string accepted, string defaultValue) =>
        $"Setting '{setting}' has the value \"{Shorten(text)}\", which is not valid. Accepted: {accepted}. Using the default, {defaultValue}.";

    private static string Shorten(string text) => text.Length <= 200 ? text : text.Substring(0, 200) + "…";
}
