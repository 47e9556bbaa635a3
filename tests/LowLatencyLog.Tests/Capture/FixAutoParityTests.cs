using System.Linq;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>SPEC behaviour 9 end to end: what <c>fix=Auto</c> finds in a converter registered on a layout is
/// captured, so the child behind the async appender writes what it writes attached
/// directly.</summary>
public sealed class FixAutoParityTests : AsyncAppenderFixture
{
    public FixAutoParityTests()
        : base(AsyncAppenderKind.All.Single(k => k.TypeName == nameof(DisruptorAsyncAppender)))
    {
    }

    [Test]
    public void AConverterRegisteredOnTheLayout_RendersAsForTheDirectAppender()
    {
        string Recording(string name) => $@"<appender name=""{name}"" type=""{RecordingType}"">
              <layout type=""log4net.Layout.PatternLayout"">
                <converter><name value=""who"" /><type value=""LowLatencyLog.Tests.Capture.UserPropertyConverter, LowLatencyLog.Tests"" /></converter>
                <conversionPattern value=""%message|%who"" />
              </layout>
            </appender>";
        var harness = Configure(appenders: Recording("child") + Recording("direct"), rootRefs: @"<appender-ref ref=""direct"" />");

        LogWithUser(harness.Logger(), "alice");
        Assert.That(Async(harness).Flush(10_000), Is.True);

        string[] direct = Child(harness, "direct").Lines;
        Assert.That(direct, Is.EqualTo(new[] { "m|alice" }));
        Assert.That(Child(harness).Lines, Is.EqualTo(direct));
    }

    private static void LogWithUser(ILog log, string user)
    {
        ThreadContext.Properties["user"] = user;
        try
        {
            log.Info("m");
        }
        finally
        {
            ThreadContext.Properties.Remove("user");
        }
    }
}
