using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Security;
using System.Text;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Reliability;

/// <summary>
/// Every setting of the file appenders given hostile text, as a user could type it into <c>log4net.config</c>:
/// configuration never throws, the appender is never dropped and still writes every event to its file (counted across
/// every file it made, rolled or dated), a value that cannot be valid gets exactly one internal error naming the
/// setting, and a valid value in another case or with spaces gets none. Seeded, as <see cref="ConfigFuzzTests"/>.
/// </summary>
public sealed class FileConfigFuzzTests
{
    private const int Seed = 20261123;
    private const int RandomCasesPerSetting = 8;
    private const int Events = 10;

    private static readonly string[] BufferedSettings = { "appendToFile", "immediateFlush", "bufferSize", "flushInterval", "encoding" };

    private static readonly string[] RollingSettings = BufferedSettings.Concat(new[]
    {
        "rollingStyle", "maximumFileSize", "maxSizeRollBackups", "datePattern", "staticLogFileName",
        "preserveLogFileNameExtension", "countDirection",
    }).ToArray();

    /// <summary>Text no setting accepts (a date pattern has its own list: most text is a valid date format).</summary>
    private static readonly string[] Invalid =
    {
        "", " ", "\t\n", "-1", "-2147483649", "99999999999999999999", "1e5", "0x10", "abc", "trüe", "日本語",
        "<appender/>", "&amp;", "null", "${HOME}", "true;false", "NOPE", new string('7', 5000), "\u00ff\u2028",
    };

    /// <summary>Date patterns whose output never changes within a month, or that are not formats at all (an
    /// unterminated quote, a lone escape, a one-letter non-standard format).</summary>
    private static readonly string[] InvalidDatePatterns =
    {
        " ", "\t\n", "-1", "abc", "NOPE", "null", "日本語", "yyyy", "'.'yyyy", "'yyyy-MM-dd'", "\"MM\"", "'unterminated",
        "yyyy-MM'", "\\", "Q", new string('7', 5000), "\u00ff\u2028",
    };

    /// <summary>Valid values written the way people write them: other case, surrounding spaces.</summary>
    private static readonly Dictionary<string, string[]> Valid = new Dictionary<string, string[]>
    {
        ["appendToFile"] = new[] { "TRUE", " false ", "True" },
        ["immediateFlush"] = new[] { "true", " FALSE ", "True" },
        ["bufferSize"] = new[] { "1024", " 4096 ", "65536" },
        ["flushInterval"] = new[] { "0", " 250 ", "2147483647" },
        ["encoding"] = new[] { "utf-8", " UTF-16 ", "US-ASCII", "utf-16BE" },
        ["rollingStyle"] = new[] { "once", " Size ", "DATE", "composite", "1", " 3 " },
        ["maximumFileSize"] = new[] { "1", " 1kb ", "10MB", "2 GB", "0", " -1 ", "1KB5" },
        ["maxSizeRollBackups"] = new[] { "0", " -1 ", "2147483647" },
        ["datePattern"] = new[] { ".yyyy-MM-dd", "-yyyyMMdd-HH", "'.'yyyy-MM", "_yyyy-MM-dd_HH-mm" },
        ["staticLogFileName"] = new[] { "false", " TRUE ", "False" },
        ["preserveLogFileNameExtension"] = new[] { "TRUE", " false ", "true" },
        ["countDirection"] = new[] { "0", " -1 ", "5" },
    };

    public static IEnumerable<TestCaseData> Cases()
    {
        var random = new Random(Seed);
        foreach ((string typeName, string[] settings) in new[]
                 {
                     ("BufferedFileAppender", BufferedSettings),
                     ("RollingBufferedFileAppender", RollingSettings),
                 })
        {
            foreach (string setting in settings)
            {
                // maxSizeRollBackups and countDirection take any whole number, -1 included; maximumFileSize any size, as
                // log4net (0 or less rolls before every event).
                string[] invalid = setting == "datePattern" ? InvalidDatePatterns
                    : setting == "maxSizeRollBackups" || setting == "countDirection" ? Invalid.Where(v => v != "-1").ToArray()
                    : setting == "maximumFileSize" ? Invalid.Where(v => v != "-1" && v != "-2147483649").ToArray()
                    : Invalid;
                foreach (string value in invalid)
                {
                    yield return FuzzText.Case(typeName, setting, value, expectError: true);
                }

                for (int i = 0; i < RandomCasesPerSetting; i++)
                {
                    yield return FuzzText.Case(typeName, setting, FuzzText.Random(random), expectError: true);
                }

                foreach (string value in Valid[setting])
                {
                    yield return FuzzText.Case(typeName, setting, value, expectError: false);
                }
            }
        }
    }

    [TestCaseSource(nameof(Cases))]
    public void HostileFileSetting_NeverThrowsNorDropsTheAppender_AndIsReported(string typeName, string setting, string value, bool expectError)
    {
        // Keep every size backup, so a valid tiny maximumFileSize still leaves every line somewhere on disk.
        string keepBackups = typeName == "RollingBufferedFileAppender" && setting != "maxSizeRollBackups"
            ? @"<maxSizeRollBackups value=""-1"" />"
            : "";
        string xml = $@"<log4net>
              <appender name=""file"" type=""LowLatencyLog.Appender.{typeName}, LowLatencyLog"">
                <file value=""{{dir}}app.log"" />
                {keepBackups}
                <{setting} value=""{SecurityElement.Escape(value)}"" />
                <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
              </appender>
              <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
            </log4net>";

        Log4netHarness? configured = null;
        Assert.That(() => configured = new Log4netHarness(xml), Throws.Nothing, "configuration never throws into the application");
        using (Log4netHarness harness = configured!)
        {
            var log = harness.Logger();
            for (int i = 0; i < Events; i++)
            {
                log.Info("event " + i);
            }

            harness.Shutdown();

            // An invalid encoding falls back to UTF-8; a valid one is what the file is written in.
            Encoding encoding = setting == "encoding" && !expectError ? Encoding.GetEncoding(value.Trim()) : new UTF8Encoding(false);
            string[] lines = System.IO.Directory.GetFiles(harness.Directory, "*", SearchOption.AllDirectories)
                .SelectMany(path => File.ReadAllLines(path, encoding))
                .Where(line => line.Length > 0)
                .ToArray();
            Assert.That(
                lines.OrderBy(l => int.Parse(l.Substring("event ".Length))),
                Is.EqualTo(Enumerable.Range(0, Events).Select(i => "event " + i)),
                $"every event is in the files; internal errors: {string.Join(" | ", harness.InternalErrors)}");

            string[] errors = harness.InternalErrors.Where(e => e.Contains($"'{setting}'")).ToArray();
            if (expectError)
            {
                Assert.That(errors, Has.Length.EqualTo(1), $"one error names the setting; internal errors: {string.Join(" | ", harness.InternalErrors)}");
                Assert.That(errors[0], Does.Contain("Accepted").And.Contain("default"), "the error says what is accepted and what is used instead");
            }
            else
            {
                Assert.That(harness.InternalErrors, Is.Empty, "a valid value is taken without complaint");
            }
        }
    }
}
