using System.IO;
using System.Linq;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Layout;

/// <summary>
/// The rolling appender takes the fast path too: configured from XML side by side with <c>fastLayout=false</c>, rolling
/// by size, it leaves the same files with the same bytes.
/// </summary>
[NameCuttingCulture] // %logger{n} and %type{n}: log4net's cut throws under Thai
public sealed class FastLayoutRollingTests
{
    [Test]
    public void RollingBySize_SameFilesAndBytes()
    {
        const string pattern = "%date [%thread] %-5level %logger{1} %property{aKey} - %message%newline";
        string Appender(string name, string fast) => $@"
  <appender name='{name}' type='LowLatencyLog.Appender.RollingBufferedFileAppender, LowLatencyLog'>
    <file value='{{dir}}{name}/app.log' />
    <rollingStyle value='Size' />
    <maximumFileSize value='4KB' />
    <maxSizeRollBackups value='5' />
    <encoding value='utf-16' />
    {fast}
    <layout type='log4net.Layout.PatternLayout'>
      <header value='[start]%newline' />
      <footer value='[end]%newline' />
      <conversionPattern value='{pattern}' />
    </layout>
  </appender>";
        using var harness = new Log4netHarness("<log4net />");
        harness.Configure($@"<log4net>{Appender("fast", "")}{Appender("slow", "<fastLayout value='false' />")}
  <root><level value='ALL' /><appender-ref ref='fast' /><appender-ref ref='slow' /></root>
</log4net>");
        Assert.That(harness.Appender<RollingBufferedFileAppender>("fast").UsesFastLayout, Is.True);
        Assert.That(harness.Appender<RollingBufferedFileAppender>("slow").UsesFastLayout, Is.False);
        log4net.ILog log = harness.Logger("App.Orders.Service");
        log4net.ThreadContext.Properties["aKey"] = "ctx é";
        try
        {
            for (int i = 0; i < 400; i++)
            {
                if (i % 50 == 7)
                {
                    log.Error("failed 😀 " + i, LayoutHarness.Thrown());
                }
                else
                {
                    log.InfoFormat("event {0} {1}", i, new string('x', i % 40));
                }
            }
        }
        finally
        {
            log4net.ThreadContext.Properties.Remove("aKey");
        }

        harness.Shutdown();
        string[] Files(string name) => Directory.GetFiles(harness.PathOf(name)).Select(Path.GetFileName).OrderBy(f => f).ToArray()!;
        Assert.That(Files("fast"), Is.EqualTo(Files("slow")));
        Assert.That(Files("fast"), Has.Length.GreaterThan(2));
        foreach (string file in Files("fast"))
        {
            Assert.That(File.ReadAllBytes(Path.Combine(harness.PathOf("fast"), file)), Is.EqualTo(File.ReadAllBytes(Path.Combine(harness.PathOf("slow"), file))), file);
        }
    }
}
