using System;
using System.Collections.Generic;
using System.Linq;
using System.Security;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Reliability;

/// <summary>
/// Every setting of every async appender given hostile text, as a user could type it into <c>log4net.config</c>:
/// configuration never throws, the appender is never dropped and still delivers every event, a value that cannot be
/// valid gets an internal error naming the setting, and a valid value in another case or with spaces gets none.
/// The cases are generated from a fixed seed, so a failure names a case that reproduces.
/// </summary>
public sealed class ConfigFuzzTests
{
    private const int Seed = 20261122;
    private const int RandomCasesPerSetting = 12;

    private static readonly string[] Settings = { "bufferSize", "overflow", "discardThreshold", "fix", "shutdownTimeout" };

    /// <summary>Text no setting accepts.</summary>
    private static readonly string[] Invalid =
    {
        "", " ", "\t\n", "-1", "-2147483649", "99999999999999999999", "1e5", "0x10", "abc", "Dïscard", "日本語",
        "<appender/>", "&amp;", "null", "${HOME}", "Block;Discard", "NOPE", new string('7', 5000), "\u00ff\u2028",
    };

    /// <summary>Valid values written the way people write them: other case, surrounding spaces.</summary>
    private static readonly Dictionary<string, string[]> Valid = new Dictionary<string, string[]>
    {
        ["bufferSize"] = new[] { "1024", " 64 ", "1" },
        ["overflow"] = new[] { "block", " Discard ", "BLOCK" },
        ["discardThreshold"] = new[] { "warn", " ERROR ", "Debug" },
        ["fix"] = new[] { "auto", "Message, ThreadName", "message|threadname|exception", "268", " Partial " },
        ["shutdownTimeout"] = new[] { "0", " 1000 ", "2147483647" },
    };

    public static IEnumerable<TestCaseData> Cases()
    {
        var random = new Random(Seed);
        foreach (AsyncAppenderKind kind in AsyncAppenderKind.All)
        {
            foreach (string setting in Settings)
            {
                foreach (string value in Invalid.Where(v => !(setting == "fix" && v == "")))
                {
                    yield return FuzzText.Case(kind.TypeName, setting, value, expectError: true);
                }

                for (int i = 0; i < RandomCasesPerSetting; i++)
                {
                    yield return FuzzText.Case(kind.TypeName, setting, FuzzText.Random(random), expectError: true);
                }

                foreach (string value in Valid[setting])
                {
                    yield return FuzzText.Case(kind.TypeName, setting, value, expectError: false);
                }
            }
        }
    }

    [TestCaseSource(nameof(Cases))]
    public void HostileSetting_NeverThrowsNorDropsTheAppender_AndIsReported(string typeName, string setting, string value, bool expectError)
    {
        string xml = $@"<log4net>
              <appender name=""async"" type=""LowLatencyLog.Appender.{typeName}, LowLatencyLog"">
                <{setting} value=""{SecurityElement.Escape(value)}"" />
                <appender-ref ref=""child"" />
              </appender>
              <appender name=""child"" type=""LowLatencyLog.Tests.Support.RecordingAppender, LowLatencyLog.Tests"" />
              <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
            </log4net>";

        Log4netHarness? configured = null;
        Assert.That(() => configured = new Log4netHarness(xml), Throws.Nothing, "configuration never throws into the application");
        using (Log4netHarness harness = configured!)
        {
            AsyncForwardingAppender async = harness.Appender<AsyncForwardingAppender>("async");
            var log = harness.Logger();
            for (int i = 0; i < 10; i++)
            {
                log.Error("event " + i); // ERROR: never discardable, whatever discardThreshold became
            }

            Assert.That(async.Flush(30_000), Is.True);
            Assert.That(harness.Appender<RecordingAppender>("child").Count, Is.EqualTo(10), "the appender still delivers everything");

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
