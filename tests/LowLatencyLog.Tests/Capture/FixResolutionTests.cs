using System.Linq;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Appender;
using LowLatencyLog.Capture;
using LowLatencyLog.Tests.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>Async 9 (docs/behaviours.md): <c>fix=Auto</c> resolves the fields from the children's layouts; an explicit <c>fix</c>
/// that misses what a child needs is warned about.</summary>
public sealed class FixResolutionTests : AsyncAppenderFixture
{
    private const FixFlags Always = FixFlags.Message | FixFlags.ThreadName | FixFlags.Exception;
    private const string UserConverterType = "LowLatencyLog.Tests.Capture.UserPropertyConverter, LowLatencyLog.Tests";

    public FixResolutionTests()
        : base(AsyncAppenderKind.All.First())
    {
    }

    /// <summary>What the capture resolves for the appender's children (without the caller-location mode).</summary>
    private static FixFlags Resolved(AsyncForwardingAppender async, FixFlags? fix = null) =>
        FixResolver.Resolve(fix, async.Appenders.ToArray(), _ => { }, _ => { }) & ~(CallerLocation.MethodOnly | CallerLocation.WithFile);

    /// <summary>A log4net appender that writes nowhere visible: fix=Auto knows its type, so only its layout counts.</summary>
    private const string KnownType = "log4net.Appender.DebugAppender";

    private static string KnownChild(string name = "child", string pattern = "%message") =>
        $@"<appender name=""{name}"" type=""{KnownType}"">
             <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{pattern}"" /></layout>
           </appender>";

    /// <summary>Async 15: a converter that reads ambient state when the event is written (the request of
    /// <c>%aspnet-*</c>, which the worker thread does not have) gets an activation warning naming it, also when it sits
    /// under a nested forwarding appender.</summary>
    [Test]
    public void AspNetConverters_GetAnActivationWarningNamingThem()
    {
        var harness = Configure(
            appenders: @"<appender name=""forward"" type=""log4net.Appender.ForwardingAppender""><appender-ref ref=""web"" /></appender>" +
                KnownChild("web", "%aspnet-request{url} %-5aspnet-session{user} %message"),
            refs: @"<appender-ref ref=""forward"" />");

        string[] warnings = harness.InternalWarnings.Where(w => w.Contains("[web]")).ToArray();
        Assert.That(warnings, Has.Some.Contains("%aspnet-request").And.Contains("%property"));
        Assert.That(warnings, Has.Some.Contains("%aspnet-session"));
    }

    /// <summary>Async 15: an appender of a type fix=Auto does not know (a telemetry or JSON sink) may read any
    /// property whatever its layout says, so Auto captures the properties for it.</summary>
    [Test]
    public void Auto_AChildOfAnUnknownType_GetsTheProperties()
    {
        var harness = Configure(appenders: RecordingChild("child", "%message"));

        Assert.That(Resolved(Async(harness)), Is.EqualTo(Always | FixFlags.Properties));
    }

    [TestCase("%date %level %logger - %message%newline", Always)]
    [TestCase("%message %property{user}", Always | FixFlags.Properties)]
    [TestCase("%message %X{user}", Always | FixFlags.Properties)]
    [TestCase("%ndc %message", Always | FixFlags.Properties)]
    [TestCase("%location %message", Always | FixFlags.LocationInfo)]
    [TestCase("%line %method", Always | FixFlags.LocationInfo)]
    [TestCase("%username", Always | FixFlags.UserName)]
    [TestCase("%identity", Always | FixFlags.Identity)]
    [TestCase("%appdomain %thread", Always)]
    public void Auto_PatternLayout(string pattern, FixFlags expected)
    {
        var harness = Configure(appenders: KnownChild("child", pattern));

        Assert.That(Resolved(Async(harness)), Is.EqualTo(expected));
        Assert.That(harness.InternalWarnings.Where(w => !w.Contains("the caller's location")), Is.Empty);
        Assert.That(harness.InternalWarnings.Any(w => w.Contains("the caller's location")), Is.EqualTo((expected & FixFlags.LocationInfo) != 0),
            "a layout that reads the location is named at activation");
    }

    [Test]
    public void Auto_SearchesNestedForwardingAppendersAndUnionsChildren()
    {
        var harness = Configure(
            appenders: @"<appender name=""forward"" type=""log4net.Appender.ForwardingAppender""><appender-ref ref=""inner"" /></appender>" +
                KnownChild("inner", "%ndc %message") + KnownChild("other", "%location"),
            refs: @"<appender-ref ref=""forward"" /><appender-ref ref=""other"" />");

        Assert.That(Resolved(Async(harness)), Is.EqualTo(Always | FixFlags.Properties | FixFlags.LocationInfo));
    }

    [Test]
    public void Auto_XmlLayoutUnknownLayoutAndLayoutlessChild()
    {
        var xml = Configure(appenders: $@"<appender name=""child"" type=""{KnownType}""><layout type=""log4net.Layout.XmlLayout""><locationInfo value=""true"" /></layout></appender>");
        Assert.That(Resolved(Async(xml)), Is.EqualTo(Always | FixFlags.Properties | FixFlags.UserName | FixFlags.Identity | FixFlags.LocationInfo));

        var unknown = Configure(appenders: $@"<appender name=""child"" type=""{KnownType}""><layout type=""LowLatencyLog.Tests.Capture.OpaqueLayout, LowLatencyLog.Tests"" /></appender>");
        Assert.That(Resolved(Async(unknown)), Is.EqualTo(Always | FixFlags.Properties));

        var layoutless = Configure(appenders: $@"<appender name=""child"" type=""{KnownType}"" />");
        Assert.That(Resolved(Async(layoutless)), Is.EqualTo(Always | FixFlags.Properties));

        var nullChild = Configure(appenders: @"<appender name=""child"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"" />");
        Assert.That(Resolved(Async(nullChild)), Is.EqualTo(Always));
    }

    [TestCase("%message %who", "who", UserConverterType, Always | FixFlags.Properties)]
    [TestCase("%location %who", "who", UserConverterType, Always | FixFlags.Properties | FixFlags.LocationInfo)]
    [TestCase("%message", "message", UserConverterType, Always | FixFlags.Properties)]
    [TestCase("%where", "where", "log4net.Layout.Pattern.FullLocationPatternConverter, log4net", Always | FixFlags.Properties | FixFlags.LocationInfo)]
    [TestCase("%message", "who", UserConverterType, Always)]
    public void Auto_ConverterRegisteredOnTheLayout_CountsAsPartial(string pattern, string name, string type, FixFlags expected)
    {
        var harness = Configure(appenders: $@"<appender name=""child"" type=""{KnownType}"">
              <layout type=""log4net.Layout.PatternLayout"">
                <converter><name value=""{name}"" /><type value=""{type}"" /></converter>
                <conversionPattern value=""{pattern}"" />
              </layout>
            </appender>");

        Assert.That(Resolved(Async(harness)), Is.EqualTo(expected));
    }

    [Test]
    public void Auto_ConverterAddedInCode_CountsAsPartial()
    {
        AsyncForwardingAppender async = Async(Configure());
        var layout = new PatternLayout();
        layout.AddConverter("who", typeof(UserPropertyConverter));
        layout.ConversionPattern = "%message %who";
        layout.ActivateOptions();
        async.AddAppender(new log4net.Appender.DebugAppender { Name = "late", Layout = layout });

        Assert.That(Resolved(async), Is.EqualTo(Always | FixFlags.Properties));
    }

    [TestCase("log4net.Appender.TraceAppender", "<category value=\"%property{user}\" />", Always | FixFlags.Properties)]
    [TestCase("log4net.Appender.DebugAppender", "<category type=\"log4net.Layout.PatternLayout\"><conversionPattern value=\"%location\" /></category>", Always | FixFlags.LocationInfo)]
    [TestCase("log4net.Appender.RemoteSyslogAppender", "<remoteAddress value=\"127.0.0.1\" /><identity value=\"%username\" />", Always | FixFlags.UserName)]
    public void Auto_LayoutsOnAChildsOtherSettings_AreInspected(string type, string settings, FixFlags expected)
    {
        var harness = Configure(appenders: $@"<appender name=""child"" type=""{type}"">{settings}
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message"" /></layout>
            </appender>");

        Assert.That(Resolved(Async(harness)), Is.EqualTo(expected));
    }

    [TestCase("<filter type=\"log4net.Filter.PropertyFilter\"><key value=\"tenant\" /><stringToMatch value=\"acme\" /></filter>", Always | FixFlags.Properties)]
    [TestCase("<filter type=\"log4net.Filter.NdcFilter\"><stringToMatch value=\"req\" /></filter>", Always | FixFlags.Properties)]
    [TestCase("<filter type=\"log4net.Filter.LevelRangeFilter\"><levelMin value=\"INFO\" /></filter><filter type=\"log4net.Filter.StringMatchFilter\"><stringToMatch value=\"x\" /></filter><filter type=\"log4net.Filter.DenyAllFilter\" />", Always)]
    [TestCase("<filter type=\"LowLatencyLog.Tests.Capture.OpaqueFilter, LowLatencyLog.Tests\" />", Always | FixFlags.Properties)]
    public void Auto_AChildsFilters_AreInspected(string filters, FixFlags expected)
    {
        var harness = Configure(appenders: $@"<appender name=""child"" type=""{KnownType}"">{filters}
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message"" /></layout>
            </appender>");

        Assert.That(Resolved(Async(harness)), Is.EqualTo(expected));
    }

    [TestCase("log4net.Core.LevelEvaluator", Always)]
    [TestCase("LowLatencyLog.Tests.Capture.OpaqueEvaluator, LowLatencyLog.Tests", Always | FixFlags.Properties)]
    public void Auto_ABufferingChildsEvaluator_IsInspected(string evaluator, FixFlags expected)
    {
        var harness = Configure(appenders: $@"<appender name=""child"" type=""log4net.Appender.BufferingForwardingAppender"">
              <bufferSize value=""10"" /><evaluator type=""{evaluator}"" /><appender-ref ref=""leaf"" />
            </appender>
            <appender name=""leaf"" type=""{KnownType}"">
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message"" /></layout>
            </appender>");

        Assert.That(Resolved(Async(harness)), Is.EqualTo(expected));
    }

    [Test]
    public void Auto_RawLayoutSettings_AreInspected()
    {
        AsyncForwardingAppender adapted = Async(Configure());
        adapted.AddAppender(new RawLayoutAppender { Name = "adapted", Raw = new Layout2RawLayoutAdapter(new PatternLayout("%username")) });
        // The test's appender type is one fix=Auto does not know, so the properties come with it.
        Assert.That(Resolved(adapted), Is.EqualTo(Always | FixFlags.UserName | FixFlags.Properties));

        AsyncForwardingAppender property = Async(Configure());
        property.AddAppender(new RawLayoutAppender { Name = "property", Raw = new RawPropertyLayout { Key = "user" } });
        Assert.That(Resolved(property), Is.EqualTo(Always | FixFlags.Properties));

        AsyncForwardingAppender unknown = Async(Configure());
        unknown.AddAppender(new RawLayoutAppender { Name = "unknown", Raw = new OpaqueRawLayout() });
        Assert.That(Resolved(unknown), Is.EqualTo(Always | FixFlags.Properties));
    }

    [Test]
    public void Auto_AdoNetParameters_AreInspected()
    {
        AsyncForwardingAppender async = Async(Configure());
        var database = new AdoNetAppender { Name = "database" };
        database.AddParameter(new AdoNetAppenderParameter { ParameterName = "@where", Layout = new Layout2RawLayoutAdapter(new PatternLayout("%location")) });
        async.AddAppender(database);

        // Partial as well: the appender has no layout, and reads the event in ways no setting shows.
        Assert.That(Resolved(async), Is.EqualTo(Always | FixFlags.Properties | FixFlags.LocationInfo));
    }

    [Test]
    public void Explicit_MissingWhatAChildNeeds_OneWarningNamingAppenderChildAndFlags()
    {
        var harness = Configure(@"<fix value=""Message"" />", KnownChild("child", "%thread %location %message"));

        string[] warnings = harness.InternalWarnings;
        Assert.That(warnings, Has.Length.EqualTo(1), string.Join("\n", warnings));
        Assert.That(warnings[0], Does.Contain("[async]").And.Contain("[child]").And.Contain("ThreadName").And.Contain("LocationInfo"));
        Assert.That(Resolved(Async(harness), FixFlags.Message), Is.EqualTo(FixFlags.Message), "no location mode without LocationInfo");
    }

    [Test]
    public void Explicit_NdcAndMdcFlagsMeanProperties_AndCoverAChildThatNeedsThem()
    {
        var harness = Configure(@"<fix value=""Message, ThreadName, Exception, Ndc"" />", KnownChild("child", "%ndc %message"));

        Assert.That(FixResolver.Normalize(Always | FixFlags.Ndc), Is.EqualTo(Always | FixFlags.Properties));
        Assert.That(harness.InternalWarnings, Is.Empty);
    }

    [Test]
    public void Auto_ChildAddedAfterActivation_IsTakenIntoAccount()
    {
        var harness = Configure();
        AsyncForwardingAppender async = Async(harness);
        var late = new RecordingAppender { Name = "late", Layout = new PatternLayout("%property{x}") };
        async.AddAppender(late);

        Assert.That(Resolved(async), Is.EqualTo(Always | FixFlags.Properties));
        log4net.ThreadContext.Properties["x"] = "captured";
        try
        {
            harness.Logger().Info("one");
        }
        finally
        {
            log4net.ThreadContext.Properties.Remove("x");
        }

        Assert.That(async.Flush(10_000), Is.True);
        Assert.That(late.Lines, Is.EqualTo(new[] { "captured" }), "the appender captures the properties for the late child");
    }
}

/// <summary>A layout type the resolver cannot know.</summary>
public sealed class OpaqueLayout : LayoutSkeleton
{
    public override void ActivateOptions()
    {
    }

    public override void Format(System.IO.TextWriter writer, LoggingEvent loggingEvent) => writer.Write(loggingEvent.RenderedMessage);
}

/// <summary>A converter registered on a layout instance: writes the <c>user</c> property.</summary>
public sealed class UserPropertyConverter : log4net.Layout.Pattern.PatternLayoutConverter
{
    protected override void Convert(System.IO.TextWriter writer, LoggingEvent loggingEvent) =>
        writer.Write(loggingEvent.LookupProperty("user"));
}

/// <summary>A raw layout type the resolver cannot know.</summary>
public sealed class OpaqueRawLayout : IRawLayout
{
    public object Format(LoggingEvent loggingEvent) => loggingEvent.RenderedMessage ?? "";
}

/// <summary>An appender with a raw layout setting besides its layout.</summary>
public sealed class RawLayoutAppender : AppenderSkeleton
{
    public RawLayoutAppender() => Layout = new PatternLayout("%message");

    public IRawLayout? Raw { get; set; }

    protected override void Append(LoggingEvent loggingEvent)
    {
    }
}

/// <summary>A filter the resolver cannot know: it may read anything from the event.</summary>
public sealed class OpaqueFilter : log4net.Filter.FilterSkeleton
{
    public override log4net.Filter.FilterDecision Decide(log4net.Core.LoggingEvent loggingEvent) => log4net.Filter.FilterDecision.Neutral;
}

/// <summary>An evaluator the resolver cannot know.</summary>
public sealed class OpaqueEvaluator : log4net.Core.ITriggeringEventEvaluator
{
    public bool IsTriggeringEvent(log4net.Core.LoggingEvent loggingEvent) => false;
}
