using System;
using System.Globalization;
using System.Reflection;
using System.Text.RegularExpressions;
using System.Runtime.Versioning;
using LowLatencyLog.Appender;
using NUnit.Framework;

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
    public static bool InThisBuild => LibraryBuild.IsNetCore;

    /// <summary>Checks the bytes a call allocated on the calling thread: none on the fast path, in a build that has one;
    /// on the netstandard2.0 build, log4net's event.</summary>
    public static void AssertCallsTookIt(double perCall, string message)
    {
        if (InThisBuild)
        {
            Assert.That(perCall, Is.LessThan(1), message);
        }
        else
        {
            Assert.That(perCall, Is.GreaterThanOrEqualTo(100), "the netstandard2.0 build has no fast path");
        }
    }

    /// <summary>
    /// Checks the line the kill target prints after its first calls ("least bytes a call N, library fast path B"):
    /// they took the fast path exactly when the test asked for it (<paramref name="asked"/>) and the library the child
    /// loaded has one, and log4net's path (its event allocated) otherwise.
    /// </summary>
    public static void AssertChildTook(string? line, bool asked)
    {
        Match match = Regex.Match(line ?? "", @"^least bytes a call (\d+), library fast path (True|False)$");
        Assert.That(match.Success, Is.True, $"the child's first line: {line}");
        long bytes = long.Parse(match.Groups[1].Value, CultureInfo.InvariantCulture);
        if (asked && match.Groups[2].Value == "True")
        {
            Assert.That(bytes, Is.LessThan(100), "the child's calls took the fast path");
        }
        else
        {
            Assert.That(bytes, Is.GreaterThanOrEqualTo(100), "the child's calls took log4net's path");
        }
    }
}

internal static class LibraryBuild
{
    /// <summary>Whether the library under test is its .NET 8 build (else the netstandard2.0 one).</summary>
    public static bool IsNetCore { get; } =
        typeof(AsyncForwardingAppender).Assembly.GetCustomAttribute<TargetFrameworkAttribute>()?.FrameworkName
            .StartsWith(".NETCoreApp", StringComparison.Ordinal) == true;
}
