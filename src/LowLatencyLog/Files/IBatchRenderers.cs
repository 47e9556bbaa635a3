using LowLatencyLog.Text;

namespace LowLatencyLog.Files;

/// <summary>
/// What a <see cref="FileBatchTarget{TEvent, TRenderer, TRenderers}"/> asks once per batch, under the appender's lock,
/// for the renderer of its events: the appender's layout as compiled in <c>Layout/</c>, compiled again first when it
/// was replaced or activated again. A struct over the layout's holder, so that the target's code calls it directly.
/// </summary>
internal interface IBatchRenderers<TEvent, TRenderer>
    where TRenderer : struct, IEventRenderer<TEvent>
{
    /// <summary>The renderer for this batch; false when the layout is not compiled (the events then need log4net's).</summary>
    bool TryBegin(out TRenderer renderer);

    /// <summary>After the batch, whatever happened: nothing of its events stays reachable from the renderer.</summary>
    void End(in TRenderer renderer);
}
