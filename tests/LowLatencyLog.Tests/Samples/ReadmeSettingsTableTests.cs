using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using LowLatencyLog.Configuration;
using LowLatencyLog.Engine;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine.Waiting;
using LowLatencyLog.Files;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Samples;

/// <summary>The settings tables of the README and docs/file-appenders.md give each setting the default the code uses:
/// the one the settings readers in <c>Configuration</c> return for a setting that is not given.</summary>
public sealed class ReadmeSettingsTableTests
{
    private static readonly Action<string> NoError = message => Assert.Fail("a setting not given was reported: " + message);

    [Test]
    public void TheAsyncAppenderTable_GivesEachSettingItsDefault()
    {
        Dictionary<string, string[]> table = Table(Readme(), "## Async appender settings");
        AsyncAppenderSettings code = AsyncAppenderSettings.Read(null, null, null, null, null, null, true, false, NoError);

        Assert.Multiple(() =>
        {
            Same(table, "bufferSize", int.Parse, code.BufferSize);
            Same(table, "overflow", Parse<OverflowAction>, code.Overflow);
            Same(table, "discardThreshold", text => text, code.DiscardThreshold.Name);
            Same(table, "fix", text => text, code.Fix == null ? AsyncAppenderSettings.DefaultFix : code.Fix.ToString());
            Same(table, "shutdownTimeout", int.Parse, code.ShutdownTimeout);
            Same(table, "waitStrategy", Parse<WaitStrategyKind>, code.WaitStrategy);
            Same(table, "producerType", Parse<ProducerType>, AsyncAppenderSettings.DefaultProducerType);
        });
        Assert.That(code.Fix, Is.Null, "fix=Auto is read as null");
        Assert.That(table["bufferSize"][1], Does.Contain(Number(AsyncAppenderSettings.MaxBufferSize)), "bufferSize's largest value");
    }

    [Test]
    public void TheFileAppenderTable_GivesEachSettingItsDefault()
    {
        Dictionary<string, string[]> table = Table(Readme(), "## File appender settings");
        FileAppenderSettings code = FileAppenderSettings.Read(null, null, null, null, null, null, null, NoError);

        Assert.Multiple(() => SameFileDefaults(table));
        Assert.That(Default(table, "encoding"), Is.EqualTo("UTF-8 without BOM"), "encoding's default in the README");
        Assert.That(code.Encoding.WebName, Is.EqualTo("utf-8"), "encoding's default in the code");
        Assert.That(code.Encoding.GetPreamble(), Is.Empty, "encoding's default in the code writes no BOM");
        Assert.That(table["bufferSize"][1], Does.Contain(Number(FileAppenderSettings.MinBufferSize) + "–" + Number(FileAppenderSettings.MaxBufferSize)),
            "bufferSize's accepted range");
    }

    [Test]
    public void TheRollingSettingsRow_GivesEachSettingItsDefault()
    {
        Dictionary<string, string[]> table = Table(Readme(), "## File appender settings");
        string row = table.Keys.Single(key => key.Contains("rollingStyle"));
        string[] names = row.Split(',').Select(name => name.Trim().TrimEnd('*')).ToArray();
        string defaults = table[row][0];
        Assert.That(defaults, Does.StartWith("as log4net: "), "the rolling row's default cell");
        string[] values = defaults.Substring("as log4net: ".Length).Split(',').Select(value => value.Trim()).ToArray();
        Assert.That(values, Has.Length.EqualTo(names.Length), "one default per setting in the rolling row: " + string.Join(", ", names));

        Dictionary<string, object> expected = RollingDefaults();
        Assert.That(names, Is.EquivalentTo(expected.Keys), "the settings the rolling row names");

        Assert.Multiple(() =>
        {
            for (int i = 0; i < names.Length; i++)
            {
                object readme = ReadRolling(names[i], values[i]);
                Assert.That(readme, Is.EqualTo(expected[names[i]]),
                    $"README's File appender settings give {names[i]} the default {values[i]}; the code's default is {expected[names[i]]}");
            }
        });
    }

    [Test]
    public void TheFileAppendersPage_GivesEachSettingTheDefaultTheCodeUses()
    {
        string page = Document("docs/file-appenders.md");
        Dictionary<string, string[]> table = Table(page, "## Settings");
        Dictionary<string, string[]> rolling = Table(page, "## Settings", skipTables: 1);

        Assert.Multiple(() =>
        {
            SameFileDefaults(table);
            foreach (KeyValuePair<string, object> setting in RollingDefaults())
            {
                Same(rolling, setting.Key, text => ReadRolling(setting.Key, text), setting.Value);
            }
        });
    }

    private static void SameFileDefaults(Dictionary<string, string[]> table)
    {
        FileAppenderSettings code = FileAppenderSettings.Read(null, null, null, null, null, null, null, NoError);
            Same(table, "appendToFile", bool.Parse, code.AppendToFile);
            Same(table, "immediateFlush", bool.Parse, code.ImmediateFlush);
            Same(table, "bufferSize", text => int.Parse(text.Split(' ')[0], CultureInfo.InvariantCulture), code.BufferSize);
            Same(table, "flushInterval", int.Parse, code.FlushInterval);
            Same(table, "fastLayout", bool.Parse, code.FastLayout);
    }

    private static Dictionary<string, object> RollingDefaults()
    {
        RollingOptions code = RollingSettings.Read(null, null, null, null, null, null, null, null, NoError);
        return new Dictionary<string, object>
        {
            ["rollingStyle"] = code.Mode,
            ["maximumFileSize"] = code.MaxFileSize,
            ["maxSizeRollBackups"] = code.MaxSizeRollBackups,
            ["datePattern"] = code.DatePattern,
            ["staticLogFileName"] = code.StaticLogFileName,
            ["preserveLogFileNameExtension"] = code.PreserveLogFileNameExtension,
            ["countDirection"] = code.CountDirection,
        };
    }

    private static object ReadRolling(string setting, string text) => setting switch
    {
        "rollingStyle" => Parse<RollingMode>(text),
        "maximumFileSize" => SettingReader.Size(setting, text, -1, NoError),
        "datePattern" => text,
        "staticLogFileName" or "preserveLogFileNameExtension" => bool.Parse(text),
        _ => int.Parse(text, CultureInfo.InvariantCulture),
    };

    private static void Same<T>(Dictionary<string, string[]> table, string setting, Func<string, T> parse, T code)
    {
        string text = Default(table, setting);
        T readme;
        try
        {
            readme = parse(text);
        }
        catch (FormatException)
        {
            Assert.Fail($"The docs give {setting} the default \"{text}\", which is not a value of it; the code's default is {code}");
            return;
        }

        Assert.That(readme, Is.EqualTo(code), $"The docs give {setting} the default {text}; the code's default is {code}");
    }

    private static string Default(Dictionary<string, string[]> table, string setting)
    {
        Assert.That(table, Contains.Key(setting), "the table has a row for " + setting);
        return table[setting][0];
    }

    private static T Parse<T>(string text)
        where T : struct, Enum =>
        Enum.TryParse(text, ignoreCase: false, out T value) && Enum.IsDefined(typeof(T), value) ? value : throw new FormatException(text);

    private static string Number(int value) => value.ToString("N0", CultureInfo.InvariantCulture);

    /// <summary>
    /// A table under <paramref name="heading"/> (after <paramref name="skipTables"/> others), by setting (the first cell,
    /// a row naming one setting and a note such as "(Disruptor)" keyed by the setting): the "default" cell first, then
    /// the other cells after the setting's, in order; backticks and bold marks removed.
    /// </summary>
    private static Dictionary<string, string[]> Table(string text, string heading, int skipTables = 0)
    {
        string[] lines = text.Split('\n');
        int at = Array.IndexOf(lines, heading);
        Assert.That(at, Is.GreaterThanOrEqualTo(0), "the section " + heading);
        IEnumerable<string> rest = lines.Skip(at + 1);
        for (int skipped = 0; skipped <= skipTables; skipped++)
        {
            rest = rest.SkipWhile(line => !line.StartsWith("|", StringComparison.Ordinal));
            if (skipped < skipTables)
            {
                rest = rest.SkipWhile(line => line.StartsWith("|", StringComparison.Ordinal));
            }
        }

        string[] rows = rest.TakeWhile(line => line.StartsWith("|", StringComparison.Ordinal)).ToArray();
        Assert.That(rows.Length, Is.GreaterThan(2), "a table under " + heading);

        string[] header = Cells(rows[0]);
        int column = Array.FindIndex(header, cell => string.Equals(cell, "default", StringComparison.OrdinalIgnoreCase));
        Assert.That(column, Is.GreaterThan(0), $"a \"default\" column under {heading}");
        var table = new Dictionary<string, string[]>();
        foreach (string row in rows.Skip(2))
        {
            string[] cells = Cells(row);
            string setting = cells[0].EndsWith(")", StringComparison.Ordinal) && !cells[0].Contains(",")
                ? cells[0].Substring(0, cells[0].IndexOf(' ')).Trim()
                : cells[0];
            table[setting] = new[] { cells[column] }.Concat(cells.Skip(1).Where((_, i) => i + 1 != column)).ToArray();
        }

        return table;
    }

    private static string[] Cells(string row) =>
        row.Trim().Trim('|').Split('|').Select(cell => cell.Replace("`", "").Replace("**", "").Trim()).ToArray();

    private static string Readme() => Document("README.md");

    private static string Document(string path)
    {
        DirectoryInfo? root = new DirectoryInfo(AppContext.BaseDirectory);
        while (root != null && !File.Exists(Path.Combine(root.FullName, "LowLatencyLog.sln")))
        {
            root = root.Parent;
        }

        Assert.That(root, Is.Not.Null, "repository root above " + AppContext.BaseDirectory);
        return File.ReadAllText(Path.Combine(root!.FullName, path)).Replace("\r\n", "\n");
    }
}
