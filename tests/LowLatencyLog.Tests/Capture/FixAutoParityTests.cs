using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Linq;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Tests.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>Async 9 (docs/behaviours.md) end to end: what <c>fix=Auto</c> finds in a converter registered on a layout and in a
/// child's category layout is captured, so the child behind the async appender writes what it writes attached
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
        AssertBehindAsyncAsDirect(Recording, new[] { "alice" }, new[] { "m|alice" });
    }

    [Test]
    public void AChildsPropertyFilter_LetsThroughWhatItLetsThroughDirectly()
    {
        string Filtered(string name) => $@"<appender name=""{name}"" type=""{RecordingType}"">
              <filter type=""log4net.Filter.PropertyFilter""><key value=""user"" /><stringToMatch value=""alice"" /></filter>
              <filter type=""log4net.Filter.DenyAllFilter"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""%message"" /></layout>
            </appender>";
        AssertBehindAsyncAsDirect(Filtered, new[] { "alice", "bob" }, new[] { "m" });
    }

    /// <summary>The same recording appender behind the async appender ("child") and attached directly ("direct"),
    /// one event per user: the direct one writes <paramref name="expected"/>, and the async one the same.</summary>
    private void AssertBehindAsyncAsDirect(Func<string, string> appender, string[] users, string[] expected)
    {
        var harness = Configure(appenders: appender("child") + appender("direct"), rootRefs: @"<appender-ref ref=""direct"" />");
        foreach (string user in users)
        {
            LogWithUser(harness.Logger(), user);
        }

        Assert.That(Async(harness).Flush(10_000), Is.True);
        string[] direct = Child(harness, "direct").Lines;
        Assert.That(direct, Is.EqualTo(expected));
        Assert.That(Child(harness).Lines, Is.EqualTo(direct));
    }

    [Test]
    public void ATraceAppendersCategory_RendersAsForTheDirectAppender()
    {
        string tag = "fix-auto-" + Guid.NewGuid().ToString("N");
        string Trace(string name) => $@"<appender name=""{name}"" type=""log4net.Appender.TraceAppender"">
              <category value=""{tag}|%property{{user}}"" />
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{name}:%message"" /></layout>
            </appender>";
        var listener = new CategoryListener(tag);
        System.Diagnostics.Trace.Listeners.Add(listener);
        try
        {
            var harness = Configure(appenders: Trace("child") + Trace("direct"), rootRefs: @"<appender-ref ref=""direct"" />");

            LogWithUser(harness.Logger(), "bob");
            Assert.That(Async(harness).Flush(10_000), Is.True);
        }
        finally
        {
            System.Diagnostics.Trace.Listeners.Remove(listener);
        }

        Assert.That(listener.CategoryOf("direct:m"), Is.EqualTo(tag + "|bob"));
        Assert.That(listener.CategoryOf("child:m"), Is.EqualTo(listener.CategoryOf("direct:m")));
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

    /// <summary>Records the category of each trace message whose category starts with this test's tag.</summary>
    private sealed class CategoryListener : TraceListener
    {
        private readonly string _tag;
        private readonly Dictionary<string, string> _categories = new Dictionary<string, string>();

        public CategoryListener(string tag) => _tag = tag;

        public string? CategoryOf(string message)
        {
            lock (_categories)
            {
                return _categories.TryGetValue(message, out string? category) ? category : null;
            }
        }

        public override void Write(string? message, string? category)
        {
            if (message != null && category != null && category.StartsWith(_tag, StringComparison.Ordinal))
            {
                lock (_categories)
                {
                    _categories[message] = category;
                }
            }
        }

        public override void Write(string? message)
        {
        }

        public override void WriteLine(string? message)
        {
        }
    }
}
