using log4net;
using LowLatencyLog.Tests.Appender;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Intercepted;

/// <summary>
/// The async appender contract (<see cref="AsyncAppenderContractTests"/>) is compiled into this assembly too, so its
/// calls are intercepted. This checks that its configuration then takes the fast path (SPEC 22), so that the suite
/// judges that path and not log4net's: an intercepted constant message allocates nothing there.
/// </summary>
[TestFixtureSource(typeof(AsyncAppenderKind), nameof(AsyncAppenderKind.All))]
public sealed class ContractOnTheFastPathTests : AsyncAppenderFixture
{
    public ContractOnTheFastPathTests(AsyncAppenderKind kind)
        : base(kind)
    {
    }

    [Test]
    public void TheContractSuitesConfiguration_TakesTheFastPath()
    {
        Log4netHarness harness = Configure();
        ILog log = harness.Logger();
        Calls(log, 1_000); // warm: the call site's route, the JIT

        double perCall = Allocations.LeastOfThreeRounds(() => Calls(log, 1_000)) / 1_000.0;

        Assert.That(Child(harness).WaitForCount(4_000), Is.True);
        FastPath.AssertCallsTookIt(perCall, "bytes per call: log4net's path makes an event of about 160");
    }

    private static void Calls(ILog log, int calls)
    {
        for (int i = 0; i < calls; i++)
        {
            log.Info("constant");
        }
    }
}
