using System;
using System.Linq;
using System.Reflection;
using LowLatencyLog.CallSites;
using LowLatencyLog.Tests.Capture;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Intercepted;

/// <summary>The location parity tests again, intercepted but with no call site reaching the capture: the stack walk
/// it does instead writes the same bytes, past the generated frames.</summary>
[NonParallelizable]
public sealed class CallerLocationTestsWithoutCallSites : CallerLocationTests
{
    [SetUp]
    public void TurnCallSitesOff() => CallSite.Disabled = true;

    [TearDown]
    public void TurnCallSitesOn() => CallSite.Disabled = false;
}

public sealed class InterceptionTests
{
    [Test]
    public void TheBuildInterceptsTheILogCalls()
    {
        Type[] generated = typeof(InterceptionTests).Assembly.GetTypes().Where(t => t.Namespace == "LowLatencyLog.Generated").ToArray();
        Assert.That(generated, Has.Length.EqualTo(1), "one generated interceptor type");
        MethodInfo[] interceptors = generated[0].GetMethods(BindingFlags.Public | BindingFlags.Static).Where(m => m.Name.StartsWith("Call", StringComparison.Ordinal)).ToArray();
        Assert.That(interceptors, Has.Length.GreaterThan(10));
        Assert.That(interceptors.All(m => (m.Attributes & MethodAttributes.RequireSecObject) != 0), "every interceptor keeps its caller's frame");
    }
}
