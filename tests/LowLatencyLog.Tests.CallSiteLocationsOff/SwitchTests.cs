using System;
using System.Linq;
using LowLatencyLog.Tests.Intercepted;
using NUnit.Framework;

namespace LowLatencyLog.Tests.CallSiteLocationsOff;

/// <summary>What this assembly's other tests rely on: its calls are intercepted, and the switch is set.</summary>
public sealed class SwitchTests
{
    [Test]
    public void TheCallsAreIntercepted_AndTheRuntimeSwitchIgnoresTheirCallSites()
    {
        Type[] generated = typeof(SwitchTests).Assembly.GetTypes().Where(t => t.Namespace == "LowLatencyLog.Generated" && t.IsAbstract && t.IsSealed).ToArray();
        Assert.That(generated, Has.Length.EqualTo(1), "one generated interceptor type");
        Assert.That(CallSiteAllocationTests.CallSiteLocationsOff, Is.True, "LowLatencyLog.CallSiteLocations=false in the runtimeconfig");
    }
}
