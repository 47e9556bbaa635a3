using System.Text;

namespace LowLatencyLog.Tests.Support;

/// <summary>The runtime's UTF-8 without a preamble, as a type of its own: the same bytes, but the writer takes it
/// through its char buffer, as any encoding but the runtime's own UTF-8 types (<c>EventBufferWriter.IsStandardUtf8</c>).</summary>
internal sealed class CharBufferedUtf8 : UTF8Encoding
{
}
