using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using log4net;
using LowLatencyLog.Benchmarks.CallSites;

namespace LowLatencyLog.Benchmarks.Cases;

/// <summary>
/// The kinds of log call users write. A constant string hides what a call costs its thread (no argument boxed, no
/// format object, no string built), so every harness runs these kinds and reports each apart.
/// </summary>
public enum MessageKind
{
    /// <summary><c>InfoFormat("Order {0} ...", i)</c>: one int argument. The headline kind.</summary>
    Format1,

    /// <summary><c>InfoFormat("Order {0} ... at {1}, ... {2}", i, price, venue)</c>: int, decimal and string.</summary>
    Format3,

    /// <summary><c>Info($"Order {i} ... at {price} ...")</c>: a new string built on every call.</summary>
    Interpolated,

    /// <summary><c>Info("Order 4711 ...")</c>: a constant string, the cheapest call there is.</summary>
    Constant,

    /// <summary><see cref="Format1"/>, with <c>Error(message, exception)</c> on one call in 1,000.</summary>
    Mixed,
}

/// <summary>The one place that writes each <see cref="MessageKind"/>; every harness logs through it.</summary>
internal static class MessageKinds
{
    public const string Format1 = InterceptedCalls.Format1;
    public const string Format3 = InterceptedCalls.Format3;
    public const string ErrorText = "Order rejected by venue XNAS";
    public const string Venue = "XNAS";

    /// <summary>What <see cref="MessageKind.Mixed"/> logs at ERROR one call in this many.</summary>
    public const int ErrorEvery = 1000;

    public static readonly decimal Price = 42.17m;

    /// <summary>Made once and thrown once, so it carries a stack trace as a caught exception does.</summary>
    public static readonly Exception Failure = MakeFailure();

    public static IReadOnlyList<MessageKind> All { get; } = Enum.GetValues<MessageKind>();

    /// <summary>One log call of <paramref name="kind"/>; <paramref name="i"/> is the caller's own counter, from 0.</summary>
    /// <remarks>These calls are not intercepted (this project builds without the call-site generator): they take
    /// log4net's path, as in an application that turns the generator off or builds for .NET Framework.</remarks>
    public static void Log(ILog log, MessageKind kind, int i)
    {
        switch (kind)
        {
            case MessageKind.Format1:
                log.InfoFormat(Format1, i);
                break;
            case MessageKind.Format3:
                log.InfoFormat(Format3, i, Price, Venue);
                break;
            case MessageKind.Interpolated:
                log.Info(Interpolate(i));
                break;
            case MessageKind.Constant:
                log.Info(BenchMessage.Text);
                break;
            default:
                if (IsError(i))
                {
                    log.Error(ErrorText, Failure);
                }
                else
                {
                    log.InfoFormat(Format1, i);
                }

                break;
        }
    }

    /// <summary>The same call as <see cref="Log(ILog, MessageKind, int)"/>, made from the intercepted project: where
    /// every appender of the logger is an async appender of the package, it skips log4net's event (SPEC 22).</summary>
    public static void LogIntercepted(ILog log, MessageKind kind, int i)
    {
        switch (kind)
        {
            case MessageKind.Format1:
                InterceptedCalls.InfoFormat1(log, i);
                break;
            case MessageKind.Format3:
                InterceptedCalls.InfoFormat3(log, i, Price, Venue);
                break;
            case MessageKind.Interpolated:
                InterceptedCalls.Info(log, InterceptedCalls.Interpolate(i, Price, Venue));
                break;
            case MessageKind.Constant:
                InterceptedCalls.Info(log, InterceptedCalls.Constant);
                break;
            default:
                if (IsError(i))
                {
                    InterceptedCalls.Error(log, ErrorText, Failure);
                }
                else
                {
                    InterceptedCalls.InfoFormat1(log, i);
                }

                break;
        }
    }

    /// <summary><see cref="Log(ILog, MessageKind, int)"/> or <see cref="LogIntercepted"/>.</summary>
    public static void Log(ILog log, MessageKind kind, int i, bool intercepted)
    {
        if (intercepted)
        {
            LogIntercepted(log, kind, i);
        }
        else
        {
            Log(log, kind, i);
        }
    }

    public static bool IsError(int i) => i % ErrorEvery == ErrorEvery - 1;

    /// <summary>
    /// The string <see cref="MessageKind.Interpolated"/> builds. Invariant, so that every framework's line reads the
    /// same whatever the machine's culture; it costs what <c>$"..."</c> costs.
    /// </summary>
    public static string Interpolate(int i) => InterceptedCalls.Interpolate(i, Price, Venue);

    /// <summary>The message of call <paramref name="i"/> as it appears in the file (for the first-line check).</summary>
    public static string Text(MessageKind kind, int i) => kind switch
    {
        MessageKind.Constant => BenchMessage.Text,
        MessageKind.Format3 or MessageKind.Interpolated => Interpolate(i),
        MessageKind.Mixed when IsError(i) => ErrorText,
        _ => string.Format(CultureInfo.InvariantCulture, Format1, i),
    };

    /// <summary>Short label for tables; the constant kind is always labelled as such.</summary>
    public static string Label(MessageKind kind) => kind switch
    {
        MessageKind.Format1 => "InfoFormat, 1 int arg",
        MessageKind.Format3 => "InfoFormat, 3 args (int, decimal, string)",
        MessageKind.Interpolated => "string built per call ($\"...\")",
        MessageKind.Constant => "constant string",
        _ => "InfoFormat 1 arg + Error(msg, exception) 1 in 1,000",
    };

    /// <summary>A kind by name (case-insensitive), or every kind for <c>all</c>.</summary>
    public static MessageKind[] Parse(string text)
    {
        if (string.Equals(text, "all", StringComparison.OrdinalIgnoreCase))
        {
            return All.ToArray();
        }

        return text.Split(',', StringSplitOptions.RemoveEmptyEntries | StringSplitOptions.TrimEntries)
            .Select(name => Enum.TryParse(name, ignoreCase: true, out MessageKind kind) && Enum.IsDefined(kind)
                ? kind
                : throw new ArgumentException($"Unknown message kind {name}: {string.Join(", ", All)} or all."))
            .ToArray();
    }

    private static Exception MakeFailure()
    {
        try
        {
            throw new InvalidOperationException("Venue XNAS rejected the order");
        }
        catch (InvalidOperationException e)
        {
            return e;
        }
    }
}
