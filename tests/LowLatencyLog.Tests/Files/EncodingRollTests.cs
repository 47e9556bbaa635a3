using System.IO;
using System.Linq;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// Size rolls with encodings other than UTF-8 come at the same event as log4net's: the same files, with the same bytes,
/// for a maximum size past the writer's char buffer.
/// </summary>
public sealed class EncodingRollTests
{
    [TestCase("utf-16")]
    [TestCase("utf-16BE")]
    [TestCase("us-ascii")]
    [TestCase("iso-8859-1")]
    [TestCase("utf-8")]
    public void SizeRolls_WithThisEncoding_MatchLog4netsFileByFile(string encoding)
    {
        string Config(string type, string folder) => $@"<log4net>
            <appender name=""file"" type=""{type}"">
              <file value=""{{dir}}{folder}/app.log"" />
              <encoding value=""{encoding}"" />
              <rollingStyle value=""Size"" />
              <maximumFileSize value=""9KB"" />
              <maxSizeRollBackups value=""10"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""file"" /></root>
          </log4net>";

        using var theirs = new Log4netHarness(Config("log4net.Appender.RollingFileAppender", "theirs"));
        using var ours = new Log4netHarness(Config("LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog", "ours"), theirs.Directory);
        for (int i = 0; i < 80; i++)
        {
            string message = $"{i:D3} " + new string((char)('a' + i % 26), 295);
            theirs.Logger().Info(message);
            ours.Logger().Info(message);
        }

        theirs.Shutdown();
        ours.Shutdown();
        string[] names = Directory.GetFiles(Path.Combine(theirs.Directory, "theirs")).Select(Path.GetFileName).OrderBy(n => n).ToArray()!;
        string Sizes(string folder) => string.Join(", ", names.Select(n => Path.Combine(theirs.Directory, folder, n))
            .Select(p => File.Exists(p) ? $"{Path.GetFileName(p)} {new FileInfo(p).Length}" : "-"));
        TestContext.Out.WriteLine($"log4net: {Sizes("theirs")}; ours: {Sizes("ours")}");
        Assert.That(names, Has.Length.GreaterThan(2), "log4net rolled");
        Assert.That(Directory.GetFiles(Path.Combine(theirs.Directory, "ours")).Select(Path.GetFileName).OrderBy(n => n), Is.EqualTo(names));
        foreach (string name in names)
        {
            Assert.That(File.ReadAllBytes(Path.Combine(theirs.Directory, "ours", name)),
                Is.EqualTo(File.ReadAllBytes(Path.Combine(theirs.Directory, "theirs", name))), name);
        }
    }
}
