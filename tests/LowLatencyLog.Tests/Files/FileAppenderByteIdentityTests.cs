using System;
using System.Collections.Generic;
using System.IO;
using log4net;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

/// <summary>
/// The same events through <c>BufferedFileAppender</c> and through log4net 3.5.0's own <c>FileAppender</c>, configured
/// the same way from XML in one repository, must leave identical files.
/// </summary>
public sealed class FileAppenderByteIdentityTests
{
    private const string FullPattern = "%date [%thread] %-5level %logger - %message%newline%exception";

    public static IEnumerable<TestCaseData> Encodings()
    {
        yield return new TestCaseData(null).SetArgDisplayNames("default");
        yield return new TestCaseData("utf-8").SetArgDisplayNames("utf-8 (BOM)");
        yield return new TestCaseData("utf-16").SetArgDisplayNames("utf-16");
        yield return new TestCaseData("utf-16BE").SetArgDisplayNames("utf-16BE");
        yield return new TestCaseData("utf-32").SetArgDisplayNames("utf-32");
        yield return new TestCaseData("iso-8859-1").SetArgDisplayNames("Latin-1");
        yield return new TestCaseData("us-ascii").SetArgDisplayNames("ASCII");
    }

    [TestCaseSource(nameof(Encodings))]
    public void SameEvents_SameBytesAsLog4netFileAppender(string? encoding)
    {
        string settings = encoding == null ? "" : $"<encoding value=\"{encoding}\" />";
        AssertSameBytes(settings, FullPattern, withHeader: true, log => LogVariety(log));
    }

    [TestCase(true)]
    [TestCase(false)]
    public void ImmediateFlushEitherWay_SameBytes(bool immediateFlush)
    {
        AssertSameBytes($"<immediateFlush value=\"{immediateFlush.ToString().ToLowerInvariant()}\" />", FullPattern, withHeader: true, log => LogVariety(log));
    }

    [Test]
    public void ALayoutWithoutExceptionConverter_GetsTheExceptionWrittenAfterIt_AsLog4netDoes()
    {
        AssertSameBytes("", "%level %message%newline", withHeader: false, log => LogVariety(log));
    }

    [Test]
    public void ManyEventsThroughASmallBuffer_SameBytes()
    {
        AssertSameBytes("", FullPattern, withHeader: true, log =>
        {
            for (int i = 0; i < 3000; i++)
            {
                log.Info($"event {i} " + new string('é', i % 700) + (i % 7 == 0 ? " 😀" : ""));
            }
        }, ours: "<bufferSize value=\"1024\" />");
    }

    [TestCase(true)]
    [TestCase(false)]
    public void AnExistingFileEndingWithANewline_IsAppendedToOrOverwritten_AsLog4netDoes(bool append)
    {
        AssertSameBytes($"<appendToFile value=\"{append.ToString().ToLowerInvariant()}\" />", FullPattern, withHeader: true,
            log => LogVariety(log), existing: "previous run\nlast line\n");
    }

    [Test]
    public void AnExistingFileEndingMidLine_GetsANewlineBeforeTheHeader_WhereLog4netWouldGlueThem()
    {
        using var harness = new Log4netHarness("<log4net />");
        File.WriteAllText(harness.PathOf("ours.log"), "torn tail without newline");
        File.WriteAllText(harness.PathOf("theirs.log"), "torn tail without newline");
        harness.Configure(Config("", "%message%newline", withHeader: true, ours: ""));
        harness.Logger().Info("next");
        harness.Shutdown();

        string ours = File.ReadAllText(harness.PathOf("ours.log"));
        string theirs = File.ReadAllText(harness.PathOf("theirs.log"));
        Assert.That(theirs, Does.StartWith("torn tail without newline[Header]"));
        Assert.That(ours, Is.EqualTo(theirs.Replace("newline[Header]", "newline" + Environment.NewLine + "[Header]")));
    }

    [TestCase("utf-8", new byte[] { 0xEF, 0xBB, 0xBF })]
    [TestCase("utf-16", new byte[] { 0xFF, 0xFE })]
    [TestCase("utf-16", new byte[] { (byte)'a', (byte)'b', (byte)'c', 0x0A })]
    [TestCase("utf-32", new byte[] { (byte)'a', (byte)'b', (byte)'c', (byte)'d', 0x0A })]
    public void AnExistingFileWithoutATornLine_GetsNoNewlineBeforeTheHeader(string encoding, byte[] existing)
    {
        // Only a byte-order mark (no text at all), or a file in another encoding that ends with a line feed: nothing
        // to repair, so the bytes are log4net's.
        using var harness = new Log4netHarness("<log4net />");
        File.WriteAllBytes(harness.PathOf("ours.log"), existing);
        File.WriteAllBytes(harness.PathOf("theirs.log"), existing);
        harness.Configure(Config($"<encoding value=\"{encoding}\" />", "%message%newline", withHeader: true, ours: ""));
        harness.Logger().Info("next");
        harness.Shutdown();

        Assert.That(File.ReadAllBytes(harness.PathOf("ours.log")), Is.EqualTo(File.ReadAllBytes(harness.PathOf("theirs.log"))));
    }

    private static void LogVariety(ILog log)
    {
        log.Info("plain ascii");
        log.Warn("accents: àéîõü ß Ø ñ €");
        log.Error("CJK: 日本語のログ 中文日志 한국어");
        log.Info("emoji: 😀🚀 𝄞 (surrogate pairs)");
        log.Info("broken pairs: \uDE00 a low half first, a high half last \uD83D");
        log.Error("failed", NestedException());
        log.Debug("tab\tand \"quotes\" and <xml/> & multi\nline\r\nmessage");
        log.Info(new string('x', 5000));
        log.Info("");
        log.Info(null);
        log.InfoFormat("formatted {0} {1}", 42, 3.5);
    }

    private static Exception NestedException()
    {
        try
        {
            try
            {
                throw new InvalidOperationException("inner — ünïcode");
            }
            catch (Exception inner)
            {
                throw new ApplicationException("outer\nsecond line", inner);
            }
        }
        catch (Exception ex)
        {
            return ex;
        }
    }

    private static void AssertSameBytes(
        string settings, string pattern, bool withHeader, Action<ILog> log, string ours = "", string? existing = null)
    {
        using var harness = new Log4netHarness("<log4net />");
        if (existing != null)
        {
            File.WriteAllText(harness.PathOf("ours.log"), existing);
            File.WriteAllText(harness.PathOf("theirs.log"), existing);
        }

        harness.Configure(Config(settings, pattern, withHeader, ours));
        Assert.That(harness.InternalErrors, Is.Empty);
        log(harness.Logger("App.Component"));
        harness.Shutdown();

        byte[] expected = File.ReadAllBytes(harness.PathOf("theirs.log"));
        byte[] actual = File.ReadAllBytes(harness.PathOf("ours.log"));
        Assert.That(expected.Length, Is.GreaterThan(100), "log4net wrote the file");
        Assert.That(actual, Is.EqualTo(expected));
    }

    private static string Config(string settings, string pattern, bool withHeader, string ours)
    {
        string layout = $"<layout type=\"log4net.Layout.PatternLayout\"><conversionPattern value=\"{pattern}\" />" +
            (withHeader ? "<header value=\"[Header]&#13;&#10;\" /><footer value=\"[Footer] é&#13;&#10;\" />" : "") + "</layout>";
        return $@"<log4net>
  <appender name=""ours"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
    <file value=""{{dir}}ours.log"" />{settings}{ours}{layout}
  </appender>
  <appender name=""theirs"" type=""log4net.Appender.FileAppender"">
    <file value=""{{dir}}theirs.log"" />{settings}{layout}
  </appender>
  <root><level value=""ALL"" /><appender-ref ref=""ours"" /><appender-ref ref=""theirs"" /></root>
</log4net>";
    }
}
