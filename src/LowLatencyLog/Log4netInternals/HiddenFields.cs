using System;
using System.Collections;
using System.Linq;
using System.Linq.Expressions;
using System.Reflection;
using log4net.Appender;
using log4net.Layout;

namespace LowLatencyLog.Log4netInternals;

/// <summary>
/// Compiled reads of the log4net fields this library needs and log4net does not expose: the converter chain and the
/// converters registered on a <see cref="PatternLayout"/>, the layout inside a <see cref="Layout2RawLayoutAdapter"/>, the
/// parameters of an <see cref="AdoNetAppender"/>.
/// </summary>
/// <remarks>
/// Each read is compiled once (not <c>FieldInfo.GetValue</c>: the chain is checked before every event). A field this
/// log4net version does not have reads as null; every caller treats null as "unknown".
/// </remarks>
internal static class HiddenFields
{
    private static readonly Func<PatternLayout, object?>? Head = Build<PatternLayout>("_head");
    private static readonly Func<PatternLayout, object?>? Registry = Build<PatternLayout>("_instanceRulesRegistry");
    private static readonly Func<Layout2RawLayoutAdapter, object?>? Adapted = Build<Layout2RawLayoutAdapter>("_layout", "layout", "m_layout");
    private static readonly Func<AdoNetAppender, object?>? Parameters = Build<AdoNetAppender>("m_parameters");

    /// <summary>Whether this log4net version's <see cref="PatternLayout"/> has the fields the fast path reads.</summary>
    public static bool PatternLayoutReadable => Head != null && Registry != null;

    /// <summary>Whether the layout inside a <see cref="Layout2RawLayoutAdapter"/> can be read.</summary>
    public static bool AdapterReadable => Adapted != null;

    /// <summary>Whether an <see cref="AdoNetAppender"/>'s parameters can be read.</summary>
    public static bool AdoNetParametersReadable => Parameters != null;

    /// <summary>The first converter of the chain the layout renders with, or null.</summary>
    public static object? ConverterChain(PatternLayout layout) => Head?.Invoke(layout);

    /// <summary>The converters registered on this layout instance (<c>&lt;converter&gt;</c>, <c>AddConverter</c>):
    /// a dictionary of name to <c>ConverterInfo</c>, or null when it cannot be read.</summary>
    public static object? InstanceConverters(PatternLayout layout) => Registry?.Invoke(layout);

    /// <summary>The name an entry of <see cref="InstanceConverters"/> registers its converter under.</summary>
    public static string RegisteredName(object entry) => entry is DictionaryEntry d ? d.Key?.ToString() ?? "" :
        entry.GetType().GetProperty("Key")?.GetValue(entry)?.ToString() ?? entry.ToString() ?? "";

    /// <summary>The layout an adapter formats with, or null when it cannot be read.</summary>
    public static ILayout? AdaptedLayout(Layout2RawLayoutAdapter adapter) => Adapted?.Invoke(adapter) as ILayout;

    /// <summary>The <see cref="AdoNetAppenderParameter"/> list, or null when it cannot be read.</summary>
    public static object? AdoNetParameters(AdoNetAppender appender) => Parameters?.Invoke(appender);

    /// <summary>A read of the first of <paramref name="names"/> the type has (log4net renamed fields between versions).</summary>
    private static Func<TOwner, object?>? Build<TOwner>(params string[] names)
    {
        FieldInfo? field = names
            .Select(name => typeof(TOwner).GetField(name, BindingFlags.NonPublic | BindingFlags.Public | BindingFlags.Instance))
            .FirstOrDefault(f => f != null);
        if (field == null)
        {
            return null;
        }

        ParameterExpression owner = Expression.Parameter(typeof(TOwner), "owner");
        return Expression.Lambda<Func<TOwner, object?>>(Expression.Convert(Expression.Field(owner, field), typeof(object)), owner).Compile();
    }
}
