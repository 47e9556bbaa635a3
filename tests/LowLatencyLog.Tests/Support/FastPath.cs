using System;
using System.Reflection;
using System.Runtime.Versioning;
using LowLatencyLog.Appender;

namespace LowLatencyLog.Tests.Support;

internal static class FastPath
{
#if INTERCEPTED
    /// <summary>Whether the calls of the test assembly take the fast path where a configuration allows: they are
    /// intercepted (LowLatencyLog.Tests.Intercepted), against a library build that has it.</summary>
    public static bool TakenByTheseTests => InThisBuild;
#else
    /// <summary>Whether the calls of the test assembly take the fast path: LowLatencyLog.Tests is not intercepted.</summary>
    public static bool TakenByTheseTests => false;
#endif

    /// <summary>Whether the library build under test has the fast path (the netstandard2.0 build, which .NET Framework
    /// applications load and CI also runs these tests against, has none: every call takes log4net's path).</summary>
    public static bool InThisBuild { get; } =
        typeof(AsyncForwardingAppender).Assembly.GetCustomAttribute<TargetFrameworkAttribute>()?.FrameworkName
            .StartsWith(".NETCoreApp", StringComparison.Ordinal) == true;
}
