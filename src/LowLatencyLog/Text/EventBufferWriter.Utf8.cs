#if NET8_0_OR_GREATER
using System;
using System.Buffers;
using System.Diagnostics;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Text;
using System.Text.Unicode;

namespace LowLatencyLog.Text;

/// <summary>
/// UTF-8 written straight into the byte buffer: no char buffer, no copy, no encoder call. ASCII text (nearly every
/// log line) is narrowed with vector instructions; anything else goes through the runtime's UTF-8 transcoder.
/// </summary>
/// <remarks>
/// The bytes are those of the char path (a stateful <see cref="Encoder"/> of the same encoding, which is what a
/// <see cref="System.IO.StreamWriter"/> uses), because the transcoder replaces a broken surrogate with U+FFFD exactly
/// as the encoding's replacement fallback does, and a high surrogate that ends a write is held, as the encoder holds
/// it, until the next write says whether its low half follows (a pair) or not (U+FFFD), or a flush between events
/// writes it as U+FFFD. Only an encoding that is exactly the runtime's UTF-8 with the standard replacement qualifies;
/// a subclass or another fallback keeps the char path.
/// </remarks>
internal sealed partial class EventBufferWriter
{
    private static readonly Type Utf8Sealed = Encoding.UTF8.GetType();

    private readonly bool _utf8;

    /// <summary>Whether this build encodes UTF-8 as it writes (the modern .NET build does; netstandard2.0 does not).</summary>
    public static bool DirectUtf8Supported => true;

    /// <summary>True when text is encoded as it is written (UTF-8), false when it goes through the char buffer.</summary>
    public bool EncodesAsItWrites => _utf8;

    // A high surrogate that ended the last write, not encoded yet (what the encoder would hold); '\0' when none.
    private char _heldHigh;

    // UTF-8, nothing held, not dropping, not full: the one flag the short paths read (kept by the setters below).
    private bool _ready;

    private char HeldHigh
    {
        set
        {
            _heldHigh = value;
            _ready = IsReady();
        }
    }

    private bool IsReady() => _utf8 && _heldHigh == '\0' && !_dropping && !_full;

    /// <summary>
    /// True when a caller may write UTF-8 bytes straight into <see cref="GetByteSpan"/>: this writer encodes as it
    /// writes, holds no half of a surrogate pair and is not dropping the event. The span may still be too short for what
    /// the caller has; it then writes through the writer instead.
    /// </summary>
    public bool BytesWritable => _ready;

    /// <summary>
    /// The room left in the byte buffer, for a caller that checked <see cref="BytesWritable"/>: it writes UTF-8 from the
    /// span's start, then calls <see cref="AdvanceBytes"/> with the count, before any other call into this writer (which
    /// may move or replace the buffer).
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public Span<byte> GetByteSpan() => _bytes.AsSpan(_length);

    /// <summary>Takes <paramref name="count"/> bytes written into the span of <see cref="GetByteSpan"/>.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void AdvanceBytes(int count)
    {
        Debug.Assert(_ready && (uint)count <= (uint)(_bytes.Length - _length), "bytes written into the span handed out");
        _length += count;
    }

    /// <summary>
    /// A layout's literal text in UTF-8, to be copied as it is by <see cref="WriteLiteral"/>; null when it cannot be
    /// encoded apart from its neighbours: empty, or starting with a low surrogate or ending with a high one (the encoder
    /// would pair those with the text next to them).
    /// </summary>
    public static byte[]? PreEncode(string? text) =>
        string.IsNullOrEmpty(text) || char.IsLowSurrogate(text![0]) || char.IsHighSurrogate(text[text.Length - 1])
            ? null
            : Encoding.UTF8.GetBytes(text);

    /// <summary>A layout's literal: its bytes copied when this writer encodes UTF-8 as it writes, else its text.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void WriteLiteral(string? text, byte[]? utf8)
    {
        int at = _length;
        if (_ready && utf8 != null && Utf8Text.TryPut(utf8, _bytes, ref at))
        {
            _length = at;
            return;
        }

        Write(text);
    }

    /// <summary>
    /// A short literal (a newline) packed for <see cref="TryWriteAscii(string, ulong, int)"/>: its UTF-8 bytes in the order they are
    /// stored. False when it is longer than 8 bytes or cannot be encoded apart from the text before it.
    /// </summary>
    public static bool TryPackLiteral(string text, out ulong packed, out int length)
    {
        byte[]? utf8 = text.Length == 0 ? Array.Empty<byte>() : PreEncode(text);
        packed = 0;
        length = utf8?.Length ?? 0;
        if (utf8 == null || length > sizeof(ulong))
        {
            return false;
        }

        Span<byte> bytes = stackalloc byte[sizeof(ulong)];
        bytes.Clear();
        utf8.CopyTo(bytes);
        packed = MemoryMarshal.Read<ulong>(bytes);
        return true;
    }

    /// <summary>
    /// A text (a message) and the literal after it (a newline, packed by <see cref="TryPackLiteral"/>) in one short
    /// write, when the text is ASCII and this writer encodes UTF-8 as it writes: what <c>%message%newline</c> needs per
    /// event. False, with nothing written, otherwise.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryWriteAscii(string text, ulong literal, int literalLength) => TryWriteAscii(text.AsSpan(), literal, literalLength);

    /// <summary>Chars in a span (a slot's message text), as <see cref="TryWriteAscii(string, ulong, int)"/> writes a string.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public bool TryWriteAscii(ReadOnlySpan<char> text, ulong literal, int literalLength)
    {
        byte[] bytes = _bytes;
        int at = _length;
        if (!_ready || text.Length > bytes.Length - at - sizeof(ulong))
        {
            return false;
        }

        ref byte start = ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(bytes), at);
        int written = Utf8Text.TryNarrowAscii(ref MemoryMarshal.GetReference(text), text.Length, ref start);
        if (written < 0)
        {
            return false;
        }

        // All 8 bytes stored, the literal's counted: one store for any newline, no copy loop.
        Unsafe.WriteUnaligned(ref Unsafe.Add(ref start, written), literal);
        _length = at + written + literalLength;
        return true;
    }

    private static bool IsStandardUtf8(Encoding encoding) =>
        (encoding.GetType() == typeof(UTF8Encoding) || encoding.GetType() == Utf8Sealed) &&
        encoding.EncoderFallback is EncoderReplacementFallback { DefaultString: "\uFFFD" };

    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private void WriteUtf8(ReadOnlySpan<char> text)
    {
        // ASCII only here, anything else in the slow path: through Utf8Text.TryPut, whose transcoding branch the JIT
        // inlines too, every write cost more.
        byte[] bytes = _bytes;
        int length = _length;
        if (_ready && (uint)text.Length <= (uint)(bytes.Length - length) / Utf8Text.MaxBytesPerChar)
        {
            int written = Utf8Text.TryNarrowAscii(
                ref MemoryMarshal.GetReference(text), text.Length, ref Unsafe.Add(ref MemoryMarshal.GetArrayDataReference(bytes), length));
            if (written >= 0)
            {
                _length = length + written;
                return;
            }
        }

        WriteUtf8Slow(text);
    }

    private void WriteUtf8(char value)
    {
        int length = _length;
        byte[] bytes = _bytes;
        if (_ready && value < 0x80 && (uint)length < (uint)bytes.Length)
        {
            bytes[length] = (byte)value;
            _length = length + 1;
            return;
        }

        WriteUtf8Slow(new ReadOnlySpan<char>(in value));
    }

    private void WriteUtf8(int value) => WriteUtf8Number(value);

    private void WriteUtf8(long value) => WriteUtf8Number(value);

    /// <summary>A number formatted as UTF-8 with the writer's culture: the text the char path formats, already encoded.</summary>
    private void WriteUtf8Number<T>(T value)
        where T : IUtf8SpanFormattable, ISpanFormattable
    {
        if (_ready && _bytes.Length - _length >= 64 &&
            value.TryFormat(_bytes.AsSpan(_length), out int written, default, FormatProvider))
        {
            _length += written;
            return;
        }

        Span<char> chars = stackalloc char[64];
        WriteUtf8Slow(value.TryFormat(chars, out int count, default, FormatProvider) ? chars.Slice(0, count) : value.ToString(null, FormatProvider).AsSpan());
    }

    /// <summary>
    /// Everything the short path does not take: text that is not ASCII, a held surrogate, a buffer short of room, an
    /// event being dropped.
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WriteUtf8Slow(ReadOnlySpan<char> text)
    {
        // Nothing to write leaves a held half held, as an encoder never sees an empty write.
        if (_dropping || text.IsEmpty)
        {
            return;
        }

        if (_heldHigh != '\0')
        {
            if (!EnsureUtf8Room(4))
            {
                return;
            }

            bool pair = char.IsLowSurrogate(text[0]);
            int codePoint = pair ? char.ConvertToUtf32(_heldHigh, text[0]) : 0xFFFD;
            HeldHigh = '\0';
            _length += new Rune(codePoint).EncodeToUtf8(_bytes.AsSpan(_length));
            text = pair ? text.Slice(1) : text;
        }

        while (text.Length > 0)
        {
            // Room for the whole text if that is within reach, else for some of it: the transcoder stops where the
            // room ends and the loop makes more.
            int wanted = (int)Math.Min((long)text.Length * Utf8Text.MaxBytesPerChar, 4096); // long: a string of 700 M chars
            if (_bytes.Length - _length < wanted && !EnsureUtf8Room(wanted))
            {
                return;
            }

            OperationStatus status = Utf8.FromUtf16(
                text, _bytes.AsSpan(_length), out int read, out int written, replaceInvalidSequences: true, isFinalBlock: false);
            _length += written;
            text = text.Slice(read);
            if (status == OperationStatus.NeedMoreData)
            {
                HeldHigh = text[0]; // a high surrogate at the very end: its other half may come with the next write
                return;
            }
        }
    }

    /// <summary>
    /// Room for <paramref name="wanted"/> bytes: the complete events written out, or the buffer grown within its cap.
    /// If even the cap cannot hold the event, the event is dropped whole (counted at its <see cref="EndEvent"/>).
    /// </summary>
    private bool EnsureUtf8Room(int wanted)
    {
        if (_bytes.Length - _length >= wanted || MakeRoom(wanted, allowGrowth: true))
        {
            return true;
        }

        // Not the whole of it: settle for the least that lets the transcoder move on (one char), else give up.
        if (_bytes.Length - _length >= 4 || MakeRoom(4, allowGrowth: true))
        {
            return true;
        }

        Dropping = true;
        _length = _complete;
        HeldHigh = '\0';
        return false;
    }

    /// <summary>What an encoder flush writes between events: a held high surrogate as U+FFFD.</summary>
    private void FlushHeldSurrogate()
    {
        if (_heldHigh == '\0')
        {
            return;
        }

        HeldHigh = '\0';
        if (_bytes.Length - _length >= 3 || MakeRoom(3, allowGrowth: true))
        {
            _length += new Rune(0xFFFD).EncodeToUtf8(_bytes.AsSpan(_length));
            MarkComplete();
        }
    }
}
#else
namespace LowLatencyLog.Text;

// netstandard2.0: every encoding goes through the char buffer.
internal sealed partial class EventBufferWriter
{
    public static bool DirectUtf8Supported => false;

    public bool EncodesAsItWrites => false;

    public static byte[]? PreEncode(string? text) => null;

    public void WriteLiteral(string? text, byte[]? utf8) => Write(text);

    public static bool TryPackLiteral(string text, out ulong packed, out int length)
    {
        packed = 0;
        length = 0;
        return false;
    }

    public bool TryWriteAscii(string text, ulong literal, int literalLength) => false;
}
#endif
