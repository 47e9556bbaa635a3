using System;
using System.Globalization;
using NUnit.Framework;
using NUnit.Framework.Interfaces;

namespace LowLatencyLog.Tests.Support;

/// <summary>
/// For tests that write <c>%logger{n}</c>, <c>%type{n}</c> or <c>%class{n}</c> and expect lines: log4net 3.5 finds the
/// dots with culture-sensitive searches, which under Thai ignore them, so its converter throws and the event is lost
/// (ours does the same, on purpose). Under such a process culture the test runs in the invariant culture, on its own
/// thread and on every thread it starts; under any other culture it runs unchanged.
/// </summary>
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Method)]
public sealed class NameCuttingCultureAttribute : Attribute, ITestAction
{
    private CultureInfo? _current;
    private CultureInfo? _default;
    private bool _switched;

    public ActionTargets Targets => ActionTargets.Test;

    /// <summary>Whether log4net's name precision cuts at the dots in <paramref name="culture"/>.</summary>
    public static bool CutsAtDots(CultureInfo culture) =>
        culture.CompareInfo.LastIndexOf("a.b", ".") == 1 && culture.CompareInfo.IsSuffix("a.", ".") &&
        !culture.CompareInfo.IsSuffix("a-", ".");

    public void BeforeTest(ITest test)
    {
        _switched = !CutsAtDots(CultureInfo.CurrentCulture) ||
            (CultureInfo.DefaultThreadCurrentCulture is { } d && !CutsAtDots(d));
        if (!_switched)
        {
            return;
        }

        _current = CultureInfo.CurrentCulture;
        _default = CultureInfo.DefaultThreadCurrentCulture;
        CultureInfo.CurrentCulture = CultureInfo.InvariantCulture;
        CultureInfo.DefaultThreadCurrentCulture = CultureInfo.InvariantCulture;
    }

    public void AfterTest(ITest test)
    {
        if (_switched)
        {
            CultureInfo.CurrentCulture = _current!;
            CultureInfo.DefaultThreadCurrentCulture = _default;
        }
    }
}
