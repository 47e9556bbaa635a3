using System.Collections.Generic;
using System.Linq;
using System.Text;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>The comparison of files written by threads logging at the same time accepts what log4net allows, and no more.</summary>
[Category("Oracle")]
public sealed class OracleInterleavingTests
{
    private static string E(string thread, string level, string message) => $"⁅⟪{thread}⟫⁆{level,-5} App {message}\n";

    // Step 0 on thread a; step 1 concurrent (a and b); step 2 on b.
    private static readonly string Oracle = "header\n" + E("a", "INFO", "s1") + E("b", "INFO", "c1 «1.1.0»") + E("a", "WARN", "c2 «1.0.0»")
        + E("b", "INFO", "c3 «1.1.1»\n  a second line") + E("a", "DEBUG", "c4 «1.0.1»") + E("b", "ERROR", "s2");

    private static readonly int[] Labels = { 0, 1, 1, 1, 1, 2 };

    private static string? Check(string ours, bool discard = false) =>
        OracleInterleaving.Difference(Encoding.UTF8.GetBytes(Oracle), Encoding.UTF8.GetBytes(ours), Labels, s => s == 1, discard, out _, out _);

    [Test]
    public void AnotherInterleavingWithinAConcurrentStep_Passes()
    {
        Assert.That(Check(Oracle), Is.Null);
        string ours = "header\n" + E("a", "INFO", "s1") + E("a", "WARN", "c2 «1.0.0»") + E("a", "DEBUG", "c4 «1.0.1»") + E("b", "INFO", "c1 «1.1.0»")
            + E("b", "INFO", "c3 «1.1.1»\n  a second line") + E("b", "ERROR", "s2");
        Assert.That(Check(ours), Is.Null);
    }

    [Test]
    public void AThreadsOrder_AStepsOrder_AnEventOrTheHeader_Differing_Fails()
    {
        string swapped = "header\n" + E("a", "INFO", "s1") + E("b", "INFO", "c3 «1.1.1»\n  a second line") + E("b", "INFO", "c1 «1.1.0»")
            + E("a", "WARN", "c2 «1.0.0»") + E("a", "DEBUG", "c4 «1.0.1»") + E("b", "ERROR", "s2");
        Assert.That(Check(swapped), Does.Contain("differs from the oracle's event"));

        string early = "header\n" + E("a", "WARN", "c2 «1.0.0»") + E("a", "INFO", "s1") + E("b", "INFO", "c1 «1.1.0»")
            + E("b", "INFO", "c3 «1.1.1»\n  a second line") + E("a", "DEBUG", "c4 «1.0.1»") + E("b", "ERROR", "s2");
        Assert.That(Check(early), Does.Contain("differs from the oracle's event"));

        string late = "header\n" + E("a", "INFO", "s1") + E("b", "INFO", "c1 «1.1.0»") + E("a", "WARN", "c2 «1.0.0»")
            + E("b", "INFO", "c3 «1.1.1»\n  a second line") + E("b", "ERROR", "s2") + E("a", "DEBUG", "c4 «1.0.1»");
        Assert.That(Check(late), Does.Contain("which the oracle wrote after it"));

        Assert.That(Check(Oracle.Replace("a second line", "a second lime")), Does.Contain("differs from the oracle's event"));
        Assert.That(Check(Oracle.Replace("header", "Header")), Does.Contain("before the first event"));
        Assert.That(Check(Oracle.Replace(E("a", "DEBUG", "c4 «1.0.1»"), "")), Does.Contain("ours has fewer events"));
        Assert.That(Check(Oracle + E("a", "INFO", "s3")), Does.Contain("no more event of this thread"));
    }

    [Test]
    public void UnderDiscard_OnlyInfoAndDebugEventsMayBeMissing()
    {
        string ours = Oracle.Replace(E("b", "INFO", "c1 «1.1.0»"), "").Replace(E("a", "DEBUG", "c4 «1.0.1»"), E("a", "INFO", "2 events were discarded because the buffer was full"));
        bool missing = false;
        Assert.That(OracleInterleaving.Difference(Encoding.UTF8.GetBytes(Oracle), Encoding.UTF8.GetBytes(ours), Labels, s => s == 1, true, out int lines, out missing), Is.Null);
        Assert.That((missing, lines), Is.EqualTo((true, 5)));
        Assert.That(Check(Oracle.Replace(E("a", "WARN", "c2 «1.0.0»"), ""), discard: true), Does.Contain("a WARN, ERROR or FATAL event is missing"));
        Assert.That(Check(Oracle.Replace(E("b", "ERROR", "s2"), ""), discard: true), Does.Contain("a WARN, ERROR or FATAL event is missing"));
        Assert.That(Check(Oracle.Replace(E("a", "INFO", "s1"), E("a", "INFO", "s1") + E("a", "INFO", "c5")), discard: true), Does.Contain("not among the oracle's events"));
    }

    [Test]
    public void TheChildrenOfOneAsyncAppender_MustHoldTheirSharedEventsInOneOrder()
    {
        var oracleCase = new OracleCase { Trees = { new TreeSpec { Children = { new ChildSpec { File = "a.log" }, new ChildSpec { File = "b.log" } } } } };
        byte[] File(params string[] ids) => Encoding.UTF8.GetBytes(string.Concat(ids.Select(i => $"x «{i}»\n")));
        var same = new Dictionary<string, byte[]> { ["repo0/a.log"] = File("1.0.0", "1.1.0", "1.0.1"), ["repo0/b.log"] = File("1.1.0", "1.0.1") };
        Assert.That(OracleInterleaving.OrderDifference(oracleCase, same, "ours:"), Is.Null);
        var other = new Dictionary<string, byte[]> { ["repo0/a.log"] = File("1.0.0", "1.1.0", "1.0.1"), ["repo0/b.log"] = File("1.0.1", "1.1.0") };
        Assert.That(OracleInterleaving.OrderDifference(oracleCase, other, "ours:"), Does.Contain("in two orders"));
    }
}
