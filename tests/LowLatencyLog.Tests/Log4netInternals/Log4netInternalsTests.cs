using System.Linq;
using LowLatencyLog.Log4netInternals;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Log4netInternals;

/// <summary>
/// The private members of log4net the library reaches: each one this build uses resolves against the log4net the
/// project restores, so a log4net update that renames one fails here, not silently in a user's application.
/// </summary>
public sealed class Log4netInternalsTests
{
    public static string[] Members() => PrivateMembers.All.Select(a => a.Member).ToArray();

    [TestCaseSource(nameof(Members))]
    public void EveryPrivateMemberThisBuildUses_ResolvesAgainstTheRestoredLog4net(string member)
    {
        PrivateMembers.Accessor accessor = PrivateMembers.All.Single(a => a.Member == member);
        Assert.That(accessor.Resolved || !accessor.UsedInThisBuild, Is.True, $"{member} is missing: {accessor.Fallback}");
    }

    public static string[] TypesByName() => Log4netTypes.Converters.Select(c => c.Name).ToArray();

    [TestCaseSource(nameof(TypesByName))]
    public void EveryLog4netTypeLookedUpByName_ResolvesAgainstTheRestoredLog4net(string name)
    {
        Assert.That(Log4netTypes.Converters.Single(c => c.Name == name).Type?.FullName, Is.EqualTo(name));
    }

    [Test]
    public void WithThisLog4net_NothingIsReportedMissing()
    {
        Assert.That(PrivateMembers.DescribeMissing(PrivateMembers.All), Is.Null);
    }

    [Test]
    public void AMissingMember_IsReportedWithWhatTheLibraryDoesInstead()
    {
        var missing = new PrivateMembers.Accessor("LoggingEvent._gone", true, () => false, "the getter is called instead");
        var unused = new PrivateMembers.Accessor("LoggingEvent._unused", false, () => false, "never read in this build");

        string? text = PrivateMembers.DescribeMissing(new[] { missing, unused });

        Assert.That(text, Does.Contain("LoggingEvent._gone: the getter is called instead"));
        Assert.That(text, Does.Not.Contain("_unused"));
    }
}
