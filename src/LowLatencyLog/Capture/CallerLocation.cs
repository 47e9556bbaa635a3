using System;
using System.Diagnostics;
using System.Globalization;
using System.Reflection;
using System.Runtime.CompilerServices;
using log4net.Core;

using LowLatencyLog.Log4netInternals;
namespace LowLatencyLog.Capture;

/// <summary>
/// The caller of a logging call, found on the calling thread at a fraction of the cost of log4net's
/// <see cref="LocationInfo"/>, and turned into one on the worker.
/// </summary>
/// <remarks>
/// <para>log4net walks the stack with file information and builds a <see cref="StackFrameItem"/> (names, parameters,
/// file, line, as strings) for every frame. The layouts that read only the caller's type and method (<c>%type</c>,
/// <c>%class</c>, <c>%method</c>) need the walk without file information, and one frame of it; <c>%file</c>,
/// <c>%line</c> and <c>%location</c> need the file information too, but still no frame items. The frame is found as
/// log4net finds it: past the first run of frames of the boundary type (log4net's <c>LogImpl</c>, or a wrapper's type).
/// Its names are read on the worker.</para>
/// </remarks>
internal sealed class CallerLocation
{
    /// <summary>With <see cref="FixFlags.LocationInfo"/> in the capture flags: the layouts read the caller's type and
    /// method only.</summary>
    public const FixFlags MethodOnly = (FixFlags)0x10000000;

    /// <summary>With <see cref="FixFlags.LocationInfo"/>: the layouts read the caller's file and line too, not the stack.</summary>
    public const FixFlags WithFile = (FixFlags)0x20000000;

    private static readonly CallerLocation NotAvailable = new CallerLocation(null, null, 0, false);

    private readonly MethodBase? _method;
    private readonly string? _fileName;
    private readonly int _line;
    private readonly bool _withFile;

    // A call site described at compile time: its names, and the location and context every event from it shares.
    private readonly string? _className;
    private readonly string? _methodName;
    private readonly LocationInfo? _shared;

    private CallerLocation(MethodBase? method, string? fileName, int line, bool withFile)
    {
        _method = method;
        _fileName = fileName;
        _line = line;
        _withFile = withFile;
    }

    private CallerLocation(string className, string methodName, string? fileName, int line, bool withFile)
    {
        _className = className;
        _methodName = methodName;
        _fileName = fileName;
        _line = line;
        _withFile = withFile;
        _shared = ToLocationInfo();
    }

    /// <summary>A call site the source generator described, with its file and line (null and 0 when the runtime has
    /// no line information for its assembly, as log4net then writes).</summary>
    public static CallerLocation FromSite(string className, string methodName, string? fileName, int line) =>
        new CallerLocation(className, methodName, fileName, line, withFile: true);

    /// <summary>A call site the source generator described, its type and method only.</summary>
    public static CallerLocation FromSite(string className, string methodName) =>
        new CallerLocation(className, methodName, null, 0, withFile: false);

    /// <summary>Whether every event from this caller can share one location (and one context holding only it).</summary>
    public bool IsShared => _shared != null;

    /// <summary>Producer thread: the context of an event that carries this shared location and nothing else, made once.</summary>
    internal CapturedContext? SharedContext;

    /// <summary>
    /// Producer thread. The caller of <paramref name="source"/>'s logging call, with its file and line if
    /// <paramref name="withFile"/>; null when the event's own getter must answer (its location is computed or frozen
    /// already, or this log4net hides the boundary).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static CallerLocation? Capture(LoggingEvent source, bool withFile)
    {
        Type? boundary = EventFields.PendingLocationBoundary(source);
        if (boundary == null)
        {
            return null;
        }

        if (KnownCallSite.Caller(source, boundary, withFile) is { } site)
        {
            return site; // described at compile time: no walk
        }

        if (CallerFrame(boundary, withFile) is not StackFrame frame)
        {
            // No frame of the boundary type: the JIT inlined it into the caller (a tiered, profile-guided build does
            // that to log4net's LogImpl methods). log4net then answers "?" everywhere.
            return NotAvailable;
        }

        return new CallerLocation(frame.GetMethod(), withFile ? frame.GetFileName() : null, withFile ? frame.GetFileLineNumber() : 0, withFile);
    }

    /// <summary>
    /// The caller's frame as log4net finds it: past the first run of frames of <paramref name="boundary"/>; null when
    /// no frame is of that type.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    internal static StackFrame? CallerFrame(Type boundary, bool withFile)
    {
        // One walk, as log4net's (the runtime walks the whole stack for any frame asked for, so reading one frame costs
        // about as much as reading all of them); without file information unless a layout writes it.
        var trace = new StackTrace(withFile);
        int count = trace.FrameCount;
        int index = 0;
        while (index < count && trace.GetFrame(index)?.GetMethod()?.DeclaringType != boundary)
        {
            index++;
        }

        while (index < count && trace.GetFrame(index)?.GetMethod()?.DeclaringType == boundary)
        {
            index++;
        }

        return index < count ? trace.GetFrame(index) : null;
    }

    /// <summary>Worker thread. What log4net's <see cref="LocationInfo"/> holds for this caller, bar its stack frames.</summary>
    public LocationInfo ToLocationInfo()
    {
        if (_shared != null)
        {
            return _shared; // immutable: every event from the call site shares it
        }

        if (ReferenceEquals(this, NotAvailable))
        {
            return new LocationInfo(null); // what log4net builds for a caller it cannot find: "?" in every field
        }

        string className = _className ?? _method?.DeclaringType?.FullName ?? "?";
        string methodName = _methodName ?? _method?.Name ?? "?";
        return _withFile
            ? new LocationInfo(className, methodName, _fileName!, _line.ToString(NumberFormatInfo.InvariantInfo))
            : new LocationInfo(className, methodName, "?", "?");
    }
}
