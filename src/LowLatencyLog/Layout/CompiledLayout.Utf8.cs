#if NET8_0_OR_GREATER
using System;
using System.Runtime.CompilerServices;
using LowLatencyLog.Runtime;
using LowLatencyLog.Text;

namespace LowLatencyLog.Layout;

/// <summary>
/// The parts written as UTF-8 straight into the room the writer hands out, for a writer that encodes as it writes: each
/// part checks its own room against that span and moves a local position, with no call into the writer per part.
/// </summary>
/// <remarks>
/// A part that cannot write its bytes here (too little room left, text the writer must encode itself such as a high
/// surrogate at its end, a message object, a converter that only writes through a writer) is written through the
/// writer as on the char path, after the bytes so far are handed to it; the event goes on in bytes if the writer still
/// takes them. The bytes are the same either way (<see cref="EventBufferWriter"/>, "Utf8").
/// </remarks>
internal sealed partial class CompiledLayout
{
    [MethodImpl(Jit.Optimized)]
    private void FormatUtf8(EventBufferWriter writer, LayoutEvent loggingEvent)
    {
        LayoutPart[] parts = _parts;
        Span<byte> bytes = writer.GetByteSpan();
        int position = 0;
        for (int i = 0; i < parts.Length; i++)
        {
            LayoutPart part = parts[i];
            bool written;
            switch (part.Kind)
            {
                case PartKind.Literal:
                    written = part.Utf8 is { } literal && Utf8Text.TryPut(literal, bytes, ref position);
                    break;
                case PartKind.Message:
                    written = loggingEvent.StringMessage is { } message
                        ? Utf8Text.TryPut(message, bytes, ref position)
                        : loggingEvent.TextMessage is { } text && Utf8Text.TryPut(text.Span, bytes, ref position);
                    break;
                case PartKind.Level:
                    written = Utf8Text.TryPut(loggingEvent.Level?.DisplayName, bytes, ref position);
                    break;
                case PartKind.Thread:
                    written = Utf8Text.TryPut(loggingEvent.ThreadName, bytes, ref position);
                    break;
                case PartKind.Logger:
                    written = Utf8Text.TryPut(loggingEvent.LoggerName, bytes, ref position);
                    break;
                case PartKind.Exception:
                    written = string.IsNullOrEmpty(loggingEvent.GetExceptionString());
                    break;
                default:
                    written = part.TryWriteUtf8(bytes, ref position, loggingEvent);
                    break;
            }

            if (!written)
            {
                writer.AdvanceBytes(position);
                WritePartDirect(writer, part, loggingEvent);
                if (!writer.BytesWritable)
                {
                    FormatDirect(writer, loggingEvent, i + 1);
                    return;
                }

                bytes = writer.GetByteSpan();
                position = 0;
            }
        }

        writer.AdvanceBytes(position);
    }
}
#endif
