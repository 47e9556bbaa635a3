using System.Collections.Generic;
using log4net.Appender;
using log4net.Core;
using log4net.Layout;
using LowLatencyLog.Capture;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Capture;

/// <summary>The capture resolution on its own: which flags and caller-location mode a set of children gets, and what
/// it notes and warns about.</summary>
public sealed class FixResolverTests
{
    private const FixFlags Always = FixFlags.Message | FixFlags.ThreadName | FixFlags.Exception;
    private const FixFlags Modes = CallerLocation.MethodOnly | CallerLocation.WithFile;

    private readonly List<string> _notes = new List<string>();
    private readonly List<string> _warnings = new List<string>();

    [SetUp]
    public void Clear()
    {
        _notes.Clear();
        _warnings.Clear();
    }

    [Test]
    public void Auto_KnownChild_GetsWhatItsLayoutReads_WithoutANote()
    {
        FixFlags flags = Resolve(null, Known("%message %property{user}"));

        Assert.That(flags, Is.EqualTo(Always | FixFlags.Properties));
        Assert.That(_notes, Is.Empty);
        Assert.That(_warnings, Is.Empty);
    }

    [Test]
    public void Auto_ChildOfUnknownType_GetsTheProperties_AndANoteNamingIt()
    {
        FixFlags flags = Resolve(null, new RecordingAppender { Name = "sink", Layout = new PatternLayout("%message") });

        Assert.That(flags, Is.EqualTo(Always | FixFlags.Properties));
        Assert.That(_notes, Has.Count.EqualTo(1));
        Assert.That(_notes[0], Does.Contain("[sink]").And.Contain(typeof(RecordingAppender).FullName));
    }

    [Test]
    public void Auto_NoChildren_CapturesWhatItAlwaysCaptures()
    {
        Assert.That(Resolve(null), Is.EqualTo(Always));
    }

    [TestCase("%method %message", CallerLocation.MethodOnly)]
    [TestCase("%type %message", CallerLocation.MethodOnly)]
    [TestCase("%line %message", CallerLocation.WithFile)]
    [TestCase("%location %message", CallerLocation.WithFile)]
    [TestCase("%stacktrace %message", FixFlags.None)]
    public void Location_TheModeIsTheLeastTheLayoutsRead_AndTheChildIsWarnedAbout(string pattern, FixFlags mode)
    {
        FixFlags flags = Resolve(null, Known(pattern, "where"));

        Assert.That(flags & FixFlags.LocationInfo, Is.EqualTo(FixFlags.LocationInfo));
        Assert.That(flags & Modes, Is.EqualTo(mode));
        Assert.That(_warnings, Has.Count.EqualTo(1));
        Assert.That(_warnings[0], Does.Contain("[where]").And.Contain("stack"));
    }

    [Test]
    public void Location_TwoChildren_TheMoreDemandingModeWins()
    {
        FixFlags flags = Resolve(null, Known("%method", "a"), Known("%line", "b"));

        Assert.That(flags & Modes, Is.EqualTo(CallerLocation.WithFile));
        Assert.That(_warnings, Has.Count.EqualTo(2));
    }

    [Test]
    public void Explicit_IsTakenAsItIs_AndWithoutLocationInfoNoModeIsAdded()
    {
        FixFlags flags = Resolve(FixFlags.Message, Known("%thread %location %message"));

        Assert.That(flags, Is.EqualTo(FixFlags.Message));
        Assert.That(_warnings, Is.Empty, "the misses are WarnAboutMisses' to report");
    }

    [Test]
    public void Explicit_WithLocationInfo_GetsTheMode()
    {
        FixFlags flags = Resolve(FixFlags.Message | FixFlags.LocationInfo, Known("%method"));

        Assert.That(flags, Is.EqualTo(FixFlags.Message | FixFlags.LocationInfo | CallerLocation.MethodOnly));
    }

    [Test]
    public void WarnAboutMisses_OneWarningPerChildNamingTheMissingFlags_NoneForAuto()
    {
        IAppender[] children = { Known("%thread %message", "a"), Known("%message", "b") };

        FixResolver.WarnAboutMisses(null, children, _warnings.Add);
        Assert.That(_warnings, Is.Empty);

        FixResolver.WarnAboutMisses(FixFlags.Message, children, _warnings.Add);
        Assert.That(_warnings, Has.Count.EqualTo(1));
        Assert.That(_warnings[0], Does.Contain("[a]").And.Contain("ThreadName").And.Contain("fix=Message"));
    }

    [Test]
    public void WarnAboutWorkerAmbient_NamesTheRequestConverter()
    {
        FixResolver.WarnAboutWorkerAmbient(new IAppender[] { Known("%aspnet-request{url} %message", "web"), Known("%message") }, _warnings.Add);

        Assert.That(_warnings, Has.Count.EqualTo(1));
        Assert.That(_warnings[0], Does.Contain("[web]").And.Contain("%aspnet-request"));
    }

    private static IAppender Known(string pattern, string name = "child") =>
        new DebugAppender { Name = name, Layout = new PatternLayout(pattern) };

    private FixFlags Resolve(FixFlags? fix, params IAppender[] children) =>
        FixResolver.Resolve(fix, children, _notes.Add, _warnings.Add);
}
