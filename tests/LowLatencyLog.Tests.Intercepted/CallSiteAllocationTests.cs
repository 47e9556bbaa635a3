using System;
using System.Threading;
using log4net;
using LowLatencyLog.Appender;
using LowLatencyLog.Log4netInternals;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Intercepted;

/// <summary>
/// What an intercepted call with caller location allocates on the logging thread: nothing beyond the same call without
/// location when its call site reaches the capture; a stack walk's worth on every call when the runtime switch
/// <c>LowLatencyLog.CallSiteLocations</c> is false (LowLatencyLog.Tests.CallSiteLocationsOff compiles this file again
/// with the switch set).
/// </summary>
[NonParallelizable]
public sealed class CallSiteAllocationTests
{
    private const int Events = 20_000;

    /// <summary>The runtime switch that makes the capture ignore the generated descriptions.</summary>
    internal static bool CallSiteLocationsOff => AppContext.TryGetSwitch("LowLatencyLog.CallSiteLocations", out bool on) && !on;

    [Test]
    public void AnInterceptedCallWithLocation_AllocatesWhatTheSameCallWithoutLocationAllocates_UnlessTheSwitchIgnoresCallSites()
    {
        Assume.That(EventFields.ReadsLocationBoundary, "the netstandard2.0 build always asks the event, as log4net does");
        long plain = Measure("%level %message%n");
        long located = Measure("%level %C.%M:%L %message%n");
        TestContext.Out.WriteLine($"without location {plain / (double)Events:F1} B/call, with %C.%M:%L {located / (double)Events:F1} B/call");
        if (CallSiteLocationsOff)
        {
            Assert.That(located - plain, Is.GreaterThan(100L * Events), "the stack walk allocates on every call");
        }
        else
        {
            Assert.That(located - plain, Is.LessThan(Events / 10), "less than a tenth of a byte per call beyond the call without location");
        }
    }

    private static long Measure(string pattern)
    {
        using var harness = new Log4netHarness($@"<log4net>
            <appender name=""async"" type=""LowLatencyLog.Appender.DisruptorAsyncAppender, LowLatencyLog"">
              <bufferSize value=""16384"" />
              <appender-ref ref=""null"" />
            </appender>
            <appender name=""null"" type=""LowLatencyLog.Appender.NullAppender, LowLatencyLog"">
              <layout type=""log4net.Layout.PatternLayout""><conversionPattern value=""{pattern}"" /></layout>
            </appender>
            <root><level value=""ALL"" /><appender-ref ref=""async"" /></root>
          </log4net>");
        ILog log = harness.Logger();
        long measured = -1;
        Exception? failure = null;
        var thread = new Thread(() =>
        {
            try
            {
                for (int i = 0; i < 4 * Events; i++)
                {
                    Order(log, i); // warm up: JIT, caches, every slot's text storage
                }

                measured = Allocations.LeastOfThreeRounds(() =>
                {
                    for (int i = 0; i < Events; i++)
                    {
                        Order(log, i);
                    }
                });
            }
            catch (Exception e)
            {
                failure = e;
            }
        }) { Name = "callsite-producer", IsBackground = true };
        thread.Start();
        Assert.That(thread.Join(TimeSpan.FromSeconds(60)), Is.True);
        Assert.That(failure, Is.Null);
        Assert.That(harness.Appender<AsyncForwardingAppender>("async").Flush(10_000), Is.True);
        return measured;
    }

    private static void Order(ILog log, int i) => log.InfoFormat("order {0} filled", i);
}
