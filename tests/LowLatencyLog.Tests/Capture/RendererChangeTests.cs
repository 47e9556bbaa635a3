using System.Collections.Generic;
using System.IO;
using log4net;
using log4net.ObjectRenderer;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>
/// A renderer for <c>*Format</c> messages added (or removed) by a reconfiguration is used from then on as log4net's own
/// <c>FileAppender</c> beside the async appender uses it (the answer "renders by default" is not kept across it).
/// </summary>
public sealed class RendererChangeTests
{
    public static IEnumerable<TestCaseData> Kinds()
    {
        foreach (AsyncAppenderKind kind in AsyncAppenderKind.All)
        {
            yield return new TestCaseData(kind).SetArgDisplayNames(kind.TypeName);
        }
    }

    [TestCaseSource(nameof(Kinds))]
    public void ARendererAddedOnReconfiguration_IsUsed(AsyncAppenderKind kind)
    {
        using var harness = new Log4netHarness(Config(kind, renderer: false));
        ILog log = harness.Logger();
        log.InfoFormat("first {0}", 1);
        harness.Configure(Config(kind, renderer: true));
        log.InfoFormat("second {0}", 2);
        harness.Configure(Config(kind, renderer: false));
        log.InfoFormat("third {0}", 3);
        harness.Repository.ResetConfiguration();
        harness.Configure(Config(kind, renderer: false));
        log.InfoFormat("fourth {0}", 4);
        harness.Shutdown();

        string theirs = File.ReadAllText(harness.PathOf("theirs.log"));
        Assert.That(theirs, Does.StartWith("first 1").And.Contain("[rendered second 2]"), "log4net's own file");
        Assert.That(File.ReadAllText(harness.PathOf("ours.log")), Is.EqualTo(theirs));
    }

    private static string Config(AsyncAppenderKind kind, bool renderer) => $@"<log4net>
            {(renderer ? $@"<renderer renderingClass=""{typeof(BracketRenderer).AssemblyQualifiedName}"" renderedClass=""log4net.Util.SystemStringFormat, log4net"" />" : "")}
            <appender name=""theirs"" type=""log4net.Appender.FileAppender"">
              <file value=""{{dir}}theirs.log"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>
            <appender name=""async"" type=""{kind.TypeAttribute}""><appender-ref ref=""ours"" /></appender>
            <appender name=""ours"" type=""LowLatencyLog.Appender.BufferedFileAppender, LowLatencyLog"">
              <file value=""{{dir}}ours.log"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message%newline"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""theirs"" /><appender-ref ref=""async"" /></root>
          </log4net>";

    public sealed class BracketRenderer : IObjectRenderer
    {
        public void RenderObject(RendererMap rendererMap, object obj, TextWriter writer) => writer.Write("[rendered " + obj + "]");
    }
}
