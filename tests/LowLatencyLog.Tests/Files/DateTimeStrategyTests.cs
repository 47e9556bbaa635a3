using System;
using System.IO;
using System.Linq;
using log4net.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// <c>dateTimeStrategy</c> as log4net's <c>RollingFileAppender</c> takes it: the strategy's clock names and rolls the
/// files (log4net's <c>UniversalDateTime</c> for servers that roll by UTC, or any <c>IDateTime</c>).
/// </summary>
public sealed class DateTimeStrategyTests
{
    [Test]
    public void AStrategyInTheConfiguration_NamesTheFilesAsLog4netDoes()
    {
        string Config(string type, string folder) => $@"<log4net>
            <appender name=""file"" type=""{type}"">
              <file value=""{{dir}}{folder}/"" />
              <staticLogFileName value=""false"" />
              <rollingStyle value=""Date"" />
              <datePattern value=""yyyy-MM-dd'.log'"" />
              <dateTimeStrategy type=""LowLatencyLog.Tests.Files.DateTimeStrategyTests+FixedDateTime, LowLatencyLog.Tests"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
          </log4net>";

        using var theirs = new Log4netHarness(Config("log4net.Appender.RollingFileAppender", "theirs"));
        using var ours = new Log4netHarness(Config("LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog", "ours"), theirs.Directory);
        theirs.Logger().Info("dated");
        ours.Logger().Info("dated");
        theirs.Shutdown();
        ours.Shutdown();

        Assert.That(ours.InternalErrors, Is.Empty);
        string[] expected = Directory.GetFiles(Path.Combine(theirs.Directory, "theirs")).Select(Path.GetFileName).ToArray()!;
        Assert.That(expected, Is.EqualTo(new[] { "2031-01-02.log" }), "log4net names the file by the strategy's date");
        Assert.That(Directory.GetFiles(Path.Combine(theirs.Directory, "ours")).Select(Path.GetFileName), Is.EqualTo(expected));
        Assert.That(File.ReadAllText(Path.Combine(theirs.Directory, "ours", "2031-01-02.log")), Is.EqualTo("dated" + Environment.NewLine));
    }

    [Test]
    public void UniversalDateTime_IsAccepted()
    {
        using var harness = new Log4netHarness(@"<log4net>
            <appender name=""file"" type=""LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog"">
              <file value=""{dir}utc.log"" />
              <rollingStyle value=""Date"" />
              <dateTimeStrategy type=""log4net.Appender.RollingFileAppender+UniversalDateTime"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
          </log4net>");
        harness.Logger().Info("by UTC");
        harness.Shutdown();

        Assert.That(harness.InternalErrors, Is.Empty);
        Assert.That(harness.InternalWarnings, Has.None.Contains("dateTimeStrategy"));
        Assert.That(File.ReadAllText(harness.PathOf("utc.log")), Is.EqualTo("by UTC" + Environment.NewLine));
    }

    /// <summary>A clock stopped on 2 January 2031.</summary>
    public sealed class FixedDateTime : RollingFileAppender.IDateTime
    {
        public DateTime Now => new DateTime(2031, 1, 2, 3, 4, 5);
    }
}
