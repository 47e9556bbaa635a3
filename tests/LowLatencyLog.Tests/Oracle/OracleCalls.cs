using System;
using System.Collections.Generic;
using System.Globalization;
using System.Linq;
using System.Runtime.CompilerServices;
using System.Text;
using log4net;
using log4net.Core;

namespace LowLatencyLog.Tests.Oracle;

/// <summary>
/// The objects a run creates for a call: every run (oracle, ours) gets fresh ones from the same description, so a
/// mutation or a counter in one run never shows in the other.
/// </summary>
internal sealed class RunContext
{
    private readonly List<Action> _afterCall = new List<Action>();

    public RunContext(Func<int, string, ILog> logger) => Logger = logger;

    public Func<int, string, ILog> Logger { get; }

    /// <summary>The logger of the call being made: a re-entrant argument logs through it.</summary>
    public ILog Current { get; set; } = null!;

    public void AfterCall(Action action) => _afterCall.Add(action);

    public void RunAfterCall()
    {
        foreach (Action action in _afterCall)
        {
            action();
        }

        _afterCall.Clear();
    }
}

/// <summary>An argument (or a non-format message object) as a description: what to create for a run, and its C# text.</summary>
public sealed class ArgSpec
{
    public string Kind = "value"; // value, builder, self, selfFormattable, impure, throws, nullToString
    public object? Value;
    public string Text = "";

    public static ArgSpec Of(object? value) => new ArgSpec { Kind = "value", Value = value };

    internal object? Create(RunContext context)
    {
        switch (Kind)
        {
            case "builder":
                var builder = new StringBuilder(Text);
                context.AfterCall(() => builder.Append(" changed"));
                return builder;
            case "fixingBuilder":
                var fixing = new FixingBuilder(Text);
                context.AfterCall(() => fixing.Builder.Append(" changed"));
                return fixing;
            case "self":
                return new SelfLogging(context, 0);
            case "selfFormattable":
                return new SelfLoggingFormattable(context, 0);
            case "impure":
                return new Impure();
            case "throws":
                return new Throws();
            case "nullToString":
                return new NullToString();
            default:
                return Value;
        }
    }

    public string ToCSharp() => Kind switch
    {
        "builder" => $"new StringBuilder({Literal(Text)}) /* then .Append(\" changed\") after the call */",
        "fixingBuilder" => $"new FixingBuilder({Literal(Text)}) /* IFixingRequired over a StringBuilder, then .Append(\" changed\") after the call */",
        "self" => "new SelfLogging(depth: 0) /* ToString() logs InfoFormat(\"nested {0} at {1}\", new SelfLogging(depth + 1), depth) while depth < 3 */",
        "selfFormattable" => "new SelfLoggingFormattable(depth: 0) /* IFormattable.ToString logs, as SelfLogging */",
        "impure" => "new Impure() /* ToString() returns \"impure 0\", then \"impure 1\", ... */",
        "throws" => "new Throws() /* ToString() throws InvalidOperationException */",
        "nullToString" => "new NullToString() /* ToString() returns null */",
        _ => ValueToCSharp(Value),
    };

    internal static string ValueToCSharp(object? value) => value switch
    {
        null => "null",
        string s => Literal(s),
        int i => i.ToString(CultureInfo.InvariantCulture),
        long l => l.ToString(CultureInfo.InvariantCulture) + "L",
        double d => double.IsNaN(d) ? "double.NaN" : double.IsInfinity(d) ? (d > 0 ? "double.PositiveInfinity" : "double.NegativeInfinity") : d.ToString("R", CultureInfo.InvariantCulture) + "d",
        decimal m => m.ToString(CultureInfo.InvariantCulture) + "m",
        DateTime t => $"new DateTime({t.Ticks}L)",
        bool b => b ? "true" : "false",
        char c => $"(char){(int)c}",
        Guid g => $"new Guid(\"{g}\")",
        _ => $"/* {value.GetType().Name} */ {Literal(value.ToString() ?? "")}",
    };

    internal static string Literal(string text)
    {
        if (text.Length > 200 && text.Distinct().Count() <= 3)
        {
            return $"new string({Literal(text.Substring(0, 1))}[0], {text.Length}) /* and the same kind of text */";
        }

        var literal = new StringBuilder("\"");
        foreach (char c in text.Length > 400 ? text.Substring(0, 400) : text)
        {
            literal.Append(c switch
            {
                '"' => "\\\"",
                '\\' => "\\\\",
                '\n' => "\\n",
                '\r' => "\\r",
                '\t' => "\\t",
                _ when c < 32 || c > 126 => "\\u" + ((int)c).ToString("X4", CultureInfo.InvariantCulture),
                _ => c.ToString(),
            });
        }

        literal.Append('"');
        return text.Length > 400 ? literal + $" /* first 400 of {text.Length} characters */" : literal.ToString();
    }

    /// <summary>Logs from <c>ToString()</c>, as an entity whose lazy load logs its SQL; the depth cap keeps it finite.</summary>
    private sealed class SelfLogging
    {
        private readonly RunContext _context;
        private readonly int _depth;

        public SelfLogging(RunContext context, int depth)
        {
            _context = context;
            _depth = depth;
        }

        [MethodImpl(OracleLocation.KeepFrames)]
        public override string ToString()
        {
            if (_depth < 3)
            {
                _context.Current.InfoFormat("nested {0} at {1}", new SelfLogging(_context, _depth + 1), _depth);
            }

            return "self " + _depth.ToString(CultureInfo.InvariantCulture);
        }
    }

    private sealed class SelfLoggingFormattable : IFormattable
    {
        private readonly RunContext _context;
        private readonly int _depth;

        public SelfLoggingFormattable(RunContext context, int depth)
        {
            _context = context;
            _depth = depth;
        }

        [MethodImpl(OracleLocation.KeepFrames)]
        public string ToString(string? format, IFormatProvider? formatProvider)
        {
            if (_depth < 3)
            {
                _context.Current.InfoFormat("nested formattable {0:x} at {1}", new SelfLoggingFormattable(_context, _depth + 1), _depth);
            }

            return "formattable " + _depth.ToString(CultureInfo.InvariantCulture) + " " + format + " " + (formatProvider as CultureInfo)?.Name;
        }

        public override string ToString() => ToString(null, null);
    }

    /// <summary>A property value that says, as log4net lets it, what to keep of it at the call.</summary>
    private sealed class FixingBuilder : IFixingRequired
    {
        public FixingBuilder(string text) => Builder = new StringBuilder(text);

        public StringBuilder Builder { get; }

        public object GetFixedObject() => Builder.ToString();

        public override string ToString() => Builder.ToString();
    }

    private sealed class Impure
    {
        private int _calls;

        public override string ToString() => "impure " + (_calls++).ToString(CultureInfo.InvariantCulture);
    }

    private sealed class Throws
    {
        public override string ToString() => throw new InvalidOperationException("this argument refuses to be rendered");
    }

    private sealed class NullToString
    {
        public override string ToString() => null!;
    }
}

/// <summary>An exception passed to a log call, thrown and caught so that it has a stack trace (the same in every run).</summary>
public static class ExceptionMaker
{
    public static readonly string[] Kinds = { "plain", "inner", "aggregate", "nonBmp", "throwingToString", "nullToString", "huge", "notThrown" };

    public static Exception Create(string kind)
    {
        if (kind == "notThrown")
        {
            return new ArgumentException("never thrown, no stack trace", "name");
        }

        try
        {
            Throw(kind);
        }
        catch (Exception exception)
        {
            return exception;
        }

        throw new InvalidOperationException("unreachable");
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static void Throw(string kind)
    {
        switch (kind)
        {
            case "inner":
                try
                {
                    throw new KeyNotFoundException("the inner one");
                }
                catch (Exception inner)
                {
                    throw new InvalidOperationException("the outer one", inner);
                }

            case "aggregate":
                throw new AggregateException("several", new InvalidOperationException("first"), new FormatException("second"));
            case "nonBmp":
                throw new InvalidOperationException("non-BMP 😀 𝄞 and a lone \uD800 surrogate");
            case "throwingToString":
                throw new ToStringThrowsException();
            case "nullToString":
                throw new ToStringNullException();
            case "huge":
                throw new InvalidOperationException(new string('h', 70_000));
            default:
                throw new InvalidOperationException("boom é");
        }
    }

    private sealed class ToStringThrowsException : Exception
    {
        public ToStringThrowsException()
            : base("its ToString throws")
        {
        }

        public override string ToString() => throw new NotSupportedException("no text for this exception");
    }

    private sealed class ToStringNullException : Exception
    {
        public ToStringNullException()
            : base("its ToString returns null")
        {
        }

        public override string ToString() => null!;
    }
}

/// <summary>One step of a case: a log call, a context change, or a reconfiguration.</summary>
public sealed class StepSpec
{
    public string Kind = "log"; // log, context, reconfigure, burst, concurrent, clock
    public int Repo;

    /// <summary>The index of the producer thread that makes the call.</summary>
    public int Thread;

    /// <summary>A burst: how many calls.</summary>
    public int Count;

    /// <summary>With fixed event times, the UTC ticks of the events this call makes.</summary>
    public long Time;

    /// <summary>A clock step: the local ticks the date rolls' clock reads from here on (<see cref="OracleClockRun"/>).</summary>
    public long Clock;
    public string Logger = "App";
    public string Level = "Info";
    public string Method = "Plain"; // Plain, PlainEx, Format, Format1, Format2, Format3, FormatProvider
    public ArgSpec? Message;
    public string Format = "";
    public List<ArgSpec> Args = new List<ArgSpec>();
    public string? Culture; // FormatProvider: null = null provider, "" = invariant
    public string? Exception;
    public string ContextOp = ""; // set, remove, logical, push, pop, principal
    public string Key = "";
    public ArgSpec? ContextValue;

    /// <summary>A concurrent step: the threads that log at the same time (see <see cref="OracleConcurrent"/>).</summary>
    public ConcurrentSpec? Together;

    public StepSpec Clone() => (StepSpec)MemberwiseClone();

    [MethodImpl(OracleLocation.KeepFrames)] // a frame of %stacktrace{2}: not inlined, and no tail call from it
    internal void Run(RunContext context, Action<int> reconfigure)
    {
        switch (Kind)
        {
            case "reconfigure":
                reconfigure(Repo);
                return;
            case "context":
                RunContextStep(context);
                return;
            case "burst":
                OracleLong.RunBurst(context.Logger(Repo, Logger), Count);
                return;
        }

        ILog log = context.Logger(Repo, Logger);
        context.Current = log;
        object?[] args = Args.Select(a => a.Create(context)).ToArray();
        switch (Method)
        {
            case "Plain":
                Call(log, Message!.Create(context), null);
                break;
            case "PlainEx":
                Call(log, Message!.Create(context), Exception == null ? null : ExceptionMaker.Create(Exception));
                break;
            case "Format":
                CallFormat(log, null, false, Format, args);
                break;
            case "FormatProvider":
                IFormatProvider? provider = Culture == null ? null : Culture.Length == 0 ? CultureInfo.InvariantCulture : CultureInfo.GetCultureInfo(Culture);
                CallFormat(log, provider, true, Format, args);
                break;
            default:
                CallFormatN(log, Format, args);
                break;
        }

        context.RunAfterCall();
    }

    private void RunContextStep(RunContext context)
    {
        object? value = ContextValue?.Create(context);
        switch (ContextOp)
        {
            case "set":
                ThreadContext.Properties[Key] = value;
                break;
            case "remove":
                ThreadContext.Properties.Remove(Key);
                break;
            case "logical":
                LogicalThreadContext.Properties[Key] = value;
                break;
            case "global":
                GlobalContext.Properties[Key] = value;
                break;
            case "push":
                ThreadContext.Stacks["NDC"].Push((string?)value);
                break;
            case "pop":
                ThreadContext.Stacks["NDC"].Pop();
                break;
            case "principal":
                OracleLocation.SetPrincipal((string?)value);
                break;
        }
    }

    [MethodImpl(OracleLocation.KeepFrames)]
    private void Call(ILog log, object? message, Exception? exception)
    {
        bool withException = Method == "PlainEx";
        switch (Level)
        {
            case "Debug": if (withException) log.Debug(message, exception); else log.Debug(message); break;
            case "Info": if (withException) log.Info(message, exception); else log.Info(message); break;
            case "Warn": if (withException) log.Warn(message, exception); else log.Warn(message); break;
            case "Error": if (withException) log.Error(message, exception); else log.Error(message); break;
            default: if (withException) log.Fatal(message, exception); else log.Fatal(message); break;
        }
    }

    [MethodImpl(OracleLocation.KeepFrames)]
    private void CallFormat(ILog log, IFormatProvider? provider, bool withProvider, string format, object?[] args)
    {
        switch (Level)
        {
            case "Debug": if (withProvider) log.DebugFormat(provider, format, args); else log.DebugFormat(format, args); break;
            case "Info": if (withProvider) log.InfoFormat(provider, format, args); else log.InfoFormat(format, args); break;
            case "Warn": if (withProvider) log.WarnFormat(provider, format, args); else log.WarnFormat(format, args); break;
            case "Error": if (withProvider) log.ErrorFormat(provider, format, args); else log.ErrorFormat(format, args); break;
            default: if (withProvider) log.FatalFormat(provider, format, args); else log.FatalFormat(format, args); break;
        }
    }

    [MethodImpl(OracleLocation.KeepFrames)]
    private void CallFormatN(ILog log, string format, object?[] a)
    {
        switch (Method, Level)
        {
            case ("Format1", "Debug"): log.DebugFormat(format, a[0]); break;
            case ("Format1", "Info"): log.InfoFormat(format, a[0]); break;
            case ("Format1", "Warn"): log.WarnFormat(format, a[0]); break;
            case ("Format1", "Error"): log.ErrorFormat(format, a[0]); break;
            case ("Format1", _): log.FatalFormat(format, a[0]); break;
            case ("Format2", "Debug"): log.DebugFormat(format, a[0], a[1]); break;
            case ("Format2", "Info"): log.InfoFormat(format, a[0], a[1]); break;
            case ("Format2", "Warn"): log.WarnFormat(format, a[0], a[1]); break;
            case ("Format2", "Error"): log.ErrorFormat(format, a[0], a[1]); break;
            case ("Format2", _): log.FatalFormat(format, a[0], a[1]); break;
            case (_, "Debug"): log.DebugFormat(format, a[0], a[1], a[2]); break;
            case (_, "Info"): log.InfoFormat(format, a[0], a[1], a[2]); break;
            case (_, "Warn"): log.WarnFormat(format, a[0], a[1], a[2]); break;
            case (_, "Error"): log.ErrorFormat(format, a[0], a[1], a[2]); break;
            default: log.FatalFormat(format, a[0], a[1], a[2]); break;
        }
    }

    public string ToCSharp()
    {
        string target = $"repo{Repo}.Logger({ArgSpec.Literal(Logger)})";
        switch (Kind)
        {
            case "reconfigure":
                return $"XmlConfigurator.Configure(repo{Repo}, /* the second configuration */);";
            case "burst":
                return OracleLong.BurstCSharp(target, Count);
            case "concurrent":
                return Together!.ToCSharp(Repo);
            case "clock":
                return $"/* our async appenders flushed, files written since given the time */ OracleDateTime.Now = {OracleRolls.Show(Clock)};";
            case "context":
                string value = ContextValue?.ToCSharp() ?? "null";
                return ContextOp switch
                {
                    "set" => $"ThreadContext.Properties[{ArgSpec.Literal(Key)}] = {value};",
                    "remove" => $"ThreadContext.Properties.Remove({ArgSpec.Literal(Key)});",
                    "logical" => $"LogicalThreadContext.Properties[{ArgSpec.Literal(Key)}] = {value};",
                    "global" => $"GlobalContext.Properties[{ArgSpec.Literal(Key)}] = {value};",
                    "push" => $"ThreadContext.Stacks[\"NDC\"].Push({value});",
                    "principal" => OracleLocation.PrincipalCSharp((string?)ContextValue?.Value),
                    _ => "ThreadContext.Stacks[\"NDC\"].Pop();",
                };
        }

        string args = string.Join(", ", Args.Select(a => a.ToCSharp()));
        return Method switch
        {
            "Plain" => $"{target}.{Level}({Message!.ToCSharp()});",
            "PlainEx" => $"{target}.{Level}({Message!.ToCSharp()}, {(Exception == null ? "null" : $"ExceptionMaker.Create(\"{Exception}\")")});",
            "Format" => $"{target}.{Level}Format({ArgSpec.Literal(Format)}, new object[] {{ {args} }});",
            "FormatProvider" => $"{target}.{Level}Format({(Culture == null ? "(IFormatProvider)null" : Culture.Length == 0 ? "CultureInfo.InvariantCulture" : $"CultureInfo.GetCultureInfo(\"{Culture}\")")}, {ArgSpec.Literal(Format)}, new object[] {{ {args} }});",
            _ => $"{target}.{Level}Format({ArgSpec.Literal(Format)}, {args});",
        };
    }
}
