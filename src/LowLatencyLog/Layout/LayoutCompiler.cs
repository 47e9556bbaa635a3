using System;
using System.Collections;
using System.Collections.Generic;
using System.Linq;
using System.Reflection;
using log4net.Layout;
using log4net.Util;
using LowLatencyLog.Log4netInternals;

namespace LowLatencyLog.Layout;

/// <summary>
/// Decides whether a layout can be rendered by the fast path and compiles it.
/// </summary>
/// <remarks>
/// <para>Only log4net's own <see cref="PatternLayout"/> (the exact type) and <see cref="SimpleLayout"/> qualify: a
/// subclass may override anything. The pattern is not parsed again here: the converter chain log4net built when the
/// layout was activated is walked (its private head field, read by a compiled field access), so every option, modifier and merge of
/// literals is exactly the one log4net renders. Each converter must be one of log4net's built-in types (matched by
/// type, so a converter registered under a built-in name is caught) with options the fast path supports; the layout
/// must have no converters registered on it (<c>&lt;converter&gt;</c>). Anything else, including a failure to read the
/// chain, keeps the layout.</para>
/// </remarks>
internal static class LayoutCompiler
{
    private static readonly Assembly Log4net = typeof(PatternLayout).Assembly;

    private static readonly Dictionary<Type, Func<PatternConverter, string?, LayoutPart?>> Factories = BuildFactories();

    /// <summary>
    /// The first converter of the chain the layout renders with. <c>ActivateOptions</c> builds a new chain (setting the
    /// pattern alone does not), so a different object means the layout renders differently now.
    /// </summary>
    public static object? ConverterChain(PatternLayout layout) => HiddenFields.ConverterChain(layout);

    /// <summary>The compiled layout, or null and the reason the layout must render itself.</summary>
    public static CompiledLayout? TryCompile(ILayout? layout, out string reason)
    {
        reason = "";
        switch (layout)
        {
            case null:
                reason = "no layout is set";
                return null;
            case SimpleLayout when layout.GetType() == typeof(SimpleLayout):
                return new CompiledLayout(layout, new LayoutPart[] { new SimpleLayoutPart() }, "SimpleLayout");
            case PatternLayout pattern when layout.GetType() == typeof(PatternLayout):
                return TryCompilePattern(pattern, out reason);
            default:
                reason = $"the layout is a {layout.GetType().FullName}, not log4net's PatternLayout or SimpleLayout";
                return null;
        }
    }

    private static CompiledLayout? TryCompilePattern(PatternLayout layout, out string reason)
    {
        if (!HiddenFields.PatternLayoutReadable)
        {
            reason = "this log4net version's PatternLayout does not expose its converters the way the fast path reads them";
            return null;
        }

        if (HiddenFields.InstanceConverters(layout) is not ICollection registry)
        {
            reason = "the converters registered on the layout could not be read";
            return null;
        }

        if (registry.Count > 0)
        {
            string names = string.Join(", ", ((IEnumerable)registry).Cast<object>().Select(HiddenFields.RegisteredName));
            reason = $"converters are registered on the layout ({names})";
            return null;
        }

        var head = HiddenFields.ConverterChain(layout) as PatternConverter;
        var parts = new List<LayoutPart>();
        for (PatternConverter? converter = head; converter != null; converter = converter.Next)
        {
            LayoutPart? part = Compile(converter, out reason);
            if (part == null)
            {
                return null;
            }

            parts.Add(part);
        }

        // A literal right after a date or a padded level is written with that part's own text: one copy fewer per event.
        for (int i = parts.Count - 2; i >= 0; i--)
        {
            if (parts[i + 1] is LiteralPart literal && parts[i].TakeSuffix(literal.Text))
            {
                parts.RemoveAt(i + 1);
            }
        }

        reason = "";
        return new CompiledLayout(layout, parts.ToArray(), $"PatternLayout \"{layout.ConversionPattern}\"");
    }

    private static LayoutPart? Compile(PatternConverter converter, out string reason)
    {
        reason = "";
        Type type = converter.GetType();
        string? option = converter.Option;
        if (type == Log4netTypes.LiteralPatternConverter || type == Log4netTypes.NewLinePatternConverter)
        {
            return new LiteralPart(option); // log4net ignores modifiers on literals and newlines
        }

        if (!Factories.TryGetValue(type, out Func<PatternConverter, string?, LayoutPart?>? factory))
        {
            reason = type.Assembly == Log4net
                ? $"the converter {type.Name} is not supported by the fast path"
                : $"the converter {type.FullName} is not one of log4net's";
            return null;
        }

        LayoutPart? part = factory(converter, option);
        if (part == null)
        {
            reason = UnsupportedOption(type, option);
            return null;
        }

        FormattingInfo formatting = converter.FormattingInfo;
        if (formatting.Min < 0 && formatting.Max == int.MaxValue)
        {
            return part;
        }

        return part is LevelPart
            ? new PaddedLevelPart(formatting.Min, formatting.Max, formatting.LeftAlign)
            : new PaddedPart(part, formatting.Min, formatting.Max, formatting.LeftAlign);
    }

    private static string UnsupportedOption(Type type, string? option)
    {
        if (type.Name.EndsWith("DatePatternConverter", StringComparison.Ordinal) && option != null)
        {
            CustomDateFormat.TryCreate(option, out string dateReason);
            return dateReason;
        }

        return $"the converter {type.Name} with the option \"{option}\" is not supported by the fast path";
    }

    private static Dictionary<Type, Func<PatternConverter, string?, LayoutPart?>> BuildFactories()
    {
        var factories = new Dictionary<Type, Func<PatternConverter, string?, LayoutPart?>>();
        void Add(Type? type, Func<PatternConverter, string?, LayoutPart?> factory)
        {
            if (type != null)
            {
                factories[type] = factory;
            }
        }

        Add(Log4netTypes.DatePatternConverter, (_, option) => Date(option, utc: false));
        Add(Log4netTypes.UtcDatePatternConverter, (_, option) => Date(option, utc: true));
        Add(Log4netTypes.LevelPatternConverter, (_, _) => new LevelPart());
        Add(Log4netTypes.ThreadPatternConverter, (_, _) => new ThreadPart());
        Add(Log4netTypes.AppDomainPatternConverter, (_, _) => new AppDomainPart());
        Add(Log4netTypes.MessagePatternConverter, (_, _) => new MessagePart());
        Add(Log4netTypes.RelativeTimePatternConverter, (_, _) => new RelativeTimePart());
        Add(Log4netTypes.NdcPatternConverter, (_, _) => new PropertyPart("NDC"));
        Add(Log4netTypes.LoggerPatternConverter, (_, option) => new LoggerPart(Precision(option)));
        Add(Log4netTypes.ExceptionPatternConverter, (_, option) => string.IsNullOrEmpty(option) ? new ExceptionPart() : null);
        Add(Log4netTypes.PropertyPatternConverter, (_, option) => option == null ? null : new PropertyPart(option));
        return factories;
    }

    /// <summary>The precision log4net's named converter takes from the option (0, all of the name, when invalid).</summary>
    private static int Precision(string? option)
    {
        string text = option?.Trim() ?? "";
        return text.Length > 0 && SystemInfo.TryParse(text, out int precision) && precision > 0 ? precision : 0;
    }

    /// <summary>The date formatter log4net's date converters choose for the option.</summary>
    private static LayoutPart? Date(string? option, bool utc)
    {
        string format = option ?? "ISO8601";
        DateFormat? date;
        if (SystemInfo.EqualsIgnoringCase(format, "ISO8601"))
        {
            date = new Log4netDateFormat(Log4netDateFormat.Kind.Iso8601);
        }
        else if (SystemInfo.EqualsIgnoringCase(format, "ABSOLUTE"))
        {
            date = new Log4netDateFormat(Log4netDateFormat.Kind.Absolute);
        }
        else if (SystemInfo.EqualsIgnoringCase(format, "DATE"))
        {
            date = new Log4netDateFormat(Log4netDateFormat.Kind.Date);
        }
        else
        {
            date = CustomDateFormat.TryCreate(format, out _);
        }

        return date == null ? null : new DatePart(date, utc);
    }
}
