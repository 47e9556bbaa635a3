using System;
using System.Collections.Concurrent;
using System.Diagnostics;
using System.Linq;
using LowLatencyLog.Tests;
using NUnit.Framework;
using NUnit.Framework.Interfaces;

[assembly: DebugAsserts.FailTheTest]

namespace LowLatencyLog.Tests;

/// <summary>
/// Makes a <see cref="Debug.Assert(bool)"/> that fires fail the test cleanly instead of ending the test host: by
/// default a failed assert on .NET calls <see cref="Environment.FailFast(string)"/>, which kills the host and every
/// test after it. The library's invariant checks (<c>AssertInvariants</c>) exist only in Debug builds, which the CI's
/// Debug leg runs.
/// </summary>
/// <remarks>
/// A failed assert throws <see cref="DebugAssertException"/> where it fires and is recorded; after every test the
/// record must be empty or the test fails. The record is what catches an assert on the worker thread or inside a
/// log call, where the library contains every exception (the worker reports it and goes on; a log call never throws
/// into the application).
/// </remarks>
[SetUpFixture]
public sealed class DebugAsserts
{
    private static readonly ConcurrentQueue<string> Fired = new ConcurrentQueue<string>();

    [OneTimeSetUp]
    public void InstallListener()
    {
        // Replaces the default listener (and the test platform's): Trace.Listeners also routes Debug's failures here.
        Trace.Listeners.Clear();
        Trace.Listeners.Add(new ThrowingListener());
    }

    [OneTimeTearDown]
    public void NoneLeft()
    {
        string[] left = Take();
        Assert.That(left, Is.Empty, "Debug.Assert fired after the last test");
    }

    /// <summary>Takes the failures recorded since the last call.</summary>
    public static string[] Take()
    {
        var taken = new System.Collections.Generic.List<string>();
        while (Fired.TryDequeue(out string? failure))
        {
            taken.Add(failure);
        }

        return taken.ToArray();
    }

    /// <summary>Runs <paramref name="action"/>, which must fire an assert; returns that assert's message and forgets it.</summary>
    public static string Expect(Action action)
    {
        try
        {
            action();
        }
        catch (DebugAssertException e)
        {
            Take();
            return e.Message;
        }

        Assert.Fail("no Debug.Assert fired");
        return "";
    }

    /// <summary>On the assembly: after each test, the asserts that fired during it fail it.</summary>
    [AttributeUsage(AttributeTargets.Assembly)]
    public sealed class FailTheTestAttribute : Attribute, ITestAction
    {
        public ActionTargets Targets => ActionTargets.Test;

        public void BeforeTest(ITest test)
        {
        }

        /// <summary>Throws (NUnit records it as the test's failure) if any assert fired.</summary>
        public void AfterTest(ITest test)
        {
            string[] fired = Take();
            if (fired.Length > 0)
            {
                throw new DebugAssertException($"{fired.Length} Debug.Assert(s) fired during the test:{Environment.NewLine}" + string.Join(Environment.NewLine, fired));
            }
        }
    }

    private sealed class ThrowingListener : TraceListener
    {
        public override void Fail(string? message) => Fail(message, null);

        public override void Fail(string? message, string? detailMessage)
        {
            // Where it fired: the first frames are enough, the test runner's own are noise.
            string where = string.Join(Environment.NewLine, new StackTrace(1, false).ToString().Split(new[] { Environment.NewLine }, StringSplitOptions.None).Take(12));
            string failure = $"{message} {detailMessage}".Trim() + Environment.NewLine + where;
            Fired.Enqueue(failure);
            throw new DebugAssertException(failure);
        }

        public override void Write(string? message)
        {
        }

        public override void WriteLine(string? message)
        {
        }
    }
}

/// <summary>A <see cref="Debug.Assert(bool)"/> (or a <see cref="Trace.Fail(string)"/>) that fired in a test.</summary>
public sealed class DebugAssertException : Exception
{
    public DebugAssertException(string message)
        : base(message)
    {
    }
}
