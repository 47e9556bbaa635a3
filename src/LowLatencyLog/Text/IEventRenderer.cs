namespace LowLatencyLog.Text;

/// <summary>
/// What a file sink renders each event of a batch with: the layout's side of the file appenders, which writes an event
/// into the buffer through the buffer's own API. Implemented in <c>Layout/</c> by small structs, so the sink's loop,
/// generic over the struct, calls the layout directly.
/// </summary>
/// <typeparam name="TEvent">The events of a batch: log4net's, or the async appenders' captured slots.</typeparam>
internal interface IEventRenderer<TEvent>
{
    /// <summary>Whether the event is written at all (an appender's threshold): false skips it before any roll check.</summary>
    bool Accepts(in TEvent loggingEvent);

    /// <summary>Writes the event's text into <paramref name="writer"/>; the sink ends the event (or drops it if this throws).</summary>
    void Render(EventBufferWriter writer, in TEvent loggingEvent);
}
