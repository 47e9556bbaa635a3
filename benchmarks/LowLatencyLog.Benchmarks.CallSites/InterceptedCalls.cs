using System;
using System.Globalization;
using log4net;

namespace LowLatencyLog.Benchmarks.CallSites;

/// <summary>
/// Calls the generator intercepts (this project builds with it): each hands the capture its call site, so location
/// needs no stack walk, and where every appender of the logger is an async appender of the package the call goes
/// straight into its buffer. The benchmarks' message kinds, written here once so that the harnesses can make the same
/// calls intercepted or not.
/// </summary>
public static class InterceptedCalls
{
    /// <summary>The benchmarks' headline message (<c>MessageKind.Format1</c>).</summary>
    public const string Format1 = "Order {0} accepted: 100 shares of CONTOSO at 42.17, routed to venue XNAS";

    /// <summary>Three arguments: an int, a decimal and a string.</summary>
    public const string Format3 = "Order {0} accepted: 100 shares of CONTOSO at {1}, routed to venue {2}";

    /// <summary>A constant string.</summary>
    public const string Constant = "Order 4711 accepted: 100 shares of CONTOSO at 42.17, routed to venue XNAS";

    /// <summary><c>InfoFormat(Format1, i)</c>, intercepted.</summary>
    public static void InfoFormat1(ILog log, int i)
    {
        log.InfoFormat(Format1, i);
    }

    /// <summary><c>InfoFormat(Format3, i, price, venue)</c>, intercepted.</summary>
    public static void InfoFormat3(ILog log, int i, decimal price, string venue)
    {
        log.InfoFormat(Format3, i, price, venue);
    }

    /// <summary><c>Info(message)</c>, intercepted: a constant, or a string built per call.</summary>
    public static void Info(ILog log, string message)
    {
        log.Info(message);
    }

    /// <summary><c>Error(message, exception)</c>, intercepted.</summary>
    public static void Error(ILog log, string message, Exception exception)
    {
        log.Error(message, exception);
    }

    /// <summary>The string built per call, invariant (what <c>$"..."</c> costs).</summary>
    public static string Interpolate(int i, decimal price, string venue) =>
        string.Create(CultureInfo.InvariantCulture, $"Order {i} accepted: 100 shares of CONTOSO at {price}, routed to venue {venue}");
}
