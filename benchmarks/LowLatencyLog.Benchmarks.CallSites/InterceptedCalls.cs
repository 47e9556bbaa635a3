using log4net;

namespace LowLatencyLog.Benchmarks.CallSites;

/// <summary>Calls the generator intercepts: each hands the capture its call site, so location needs no stack walk.</summary>
public static class InterceptedCalls
{
    /// <summary>The benchmarks' headline message (<c>MessageKind.Format1</c>).</summary>
    public const string Format1 = "Order {0} accepted: 100 shares of CONTOSO at 42.17, routed to venue XNAS";

    /// <summary><c>InfoFormat(Format1, i)</c>, intercepted.</summary>
    public static void InfoFormat1(ILog log, int i)
    {
        log.InfoFormat(Format1, i);
    }
}
