#if NET8_0_OR_GREATER
using System;
using System.Buffers;
using System.Runtime.CompilerServices;
using System.Runtime.InteropServices;
using System.Runtime.Intrinsics;
using System.Text.Unicode;

namespace LowLatencyLog.Text;

/// <summary>
/// ASCII text narrowed into bytes with a few vector instructions: what almost every log line is made of. Short strings
/// (a message, a logger name) cost the library's general transcoders more in set-up than in work; here a string of 8 to
/// 64 chars is two overlapping loads and stores (with the widest vectors the machine has), with no loop and no call.
/// </summary>
internal static class Utf8Text
{
    /// <summary>Most bytes one UTF-16 char takes in UTF-8 (a surrogate pair takes 4 for its 2 chars).</summary>
    public const int MaxBytesPerChar = 3;

    /// <summary>
    /// Writes <paramref name="text"/> as UTF-8 at <paramref name="position"/> and moves it on; false, with the position
    /// unchanged, when the room left might not hold it or its last char is a high surrogate (whose other half may come
    /// next, so only a writer that holds it can encode it). Null writes nothing.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryPut(string? text, Span<byte> bytes, ref int position) =>
        text == null || TryPut(text.AsSpan(), bytes, ref position);

    /// <summary>Chars in a span (a buffer, part of a string), as <see cref="TryPut(string, Span{byte}, ref int)"/> writes a string.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryPut(ReadOnlySpan<char> text, Span<byte> bytes, ref int position)
    {
        int at = position;
        int count = text.Length;
        if ((uint)count > (uint)(bytes.Length - at) / MaxBytesPerChar)
        {
            return false;
        }

        int written = TryNarrowAscii(
            ref MemoryMarshal.GetReference(text), count, ref Unsafe.Add(ref MemoryMarshal.GetReference(bytes), at));
        if (written < 0)
        {
            return TryTranscode(text, bytes, ref position);
        }

        position = at + written;
        return true;
    }

    /// <summary>Bytes encoded beforehand (a literal), copied if they fit.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static bool TryPut(byte[] encoded, Span<byte> bytes, ref int position)
    {
        int at = position;
        int count = encoded.Length;
        if (count > bytes.Length - at)
        {
            return false;
        }

        ref byte destination = ref Unsafe.Add(ref MemoryMarshal.GetReference(bytes), at);
        ref byte source = ref MemoryMarshal.GetArrayDataReference(encoded);
        if (count <= 4)
        {
            // Separators and newlines: a few byte stores, no copy call.
            for (int i = 0; i < count; i++)
            {
                Unsafe.Add(ref destination, i) = Unsafe.Add(ref source, i);
            }
        }
        else
        {
            Unsafe.CopyBlockUnaligned(ref destination, ref source, (uint)count);
        }

        position = at + count;
        return true;
    }

    /// <summary>Text that is not all ASCII: the runtime's transcoder, which replaces a broken surrogate as the encoder does.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool TryTranscode(ReadOnlySpan<char> text, Span<byte> bytes, ref int position)
    {
        OperationStatus status = Utf8.FromUtf16(
            text, bytes.Slice(position), out _, out int written, replaceInvalidSequences: true, isFinalBlock: false);
        if (status != OperationStatus.Done)
        {
            return false; // NeedMoreData: a high surrogate at the end
        }

        position += written;
        return true;
    }

    /// <summary>
    /// Writes <paramref name="count"/> chars as bytes at <paramref name="destination"/> and returns
    /// <paramref name="count"/>, or returns -1 if a char is not ASCII; the bytes written before that are garbage then.
    /// </summary>
    /// <remarks>The caller guarantees <paramref name="count"/> bytes of room.</remarks>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static int TryNarrowAscii(ref char source, int count, ref byte destination)
    {
        ref ushort units = ref Unsafe.As<char, ushort>(ref source);
        if (Vector128.IsHardwareAccelerated && count >= 8)
        {
            if (count > 16)
            {
                // 17 to 32 chars (or to 64 with 512-bit vectors): the same two overlapping blocks, wider; a message is
                // often this long, and a loop call costs as much as the work.
                if (Vector512.IsHardwareAccelerated && count > 32 && count <= 64)
                {
                    Vector512<ushort> head = Vector512.LoadUnsafe(ref units);
                    Vector512<ushort> tail = Vector512.LoadUnsafe(ref Unsafe.Add(ref units, count - 32));
                    if (((head | tail) & Vector512.Create((ushort)0xFF80)) != Vector512<ushort>.Zero)
                    {
                        return -1;
                    }

                    Vector512<byte> narrow512 = Vector512.Narrow(head, tail);
                    narrow512.GetLower().StoreUnsafe(ref destination);
                    narrow512.GetUpper().StoreUnsafe(ref Unsafe.Add(ref destination, count - 32));
                    return count;
                }

                if (Vector256.IsHardwareAccelerated && count <= 32)
                {
                    Vector256<ushort> head = Vector256.LoadUnsafe(ref units);
                    Vector256<ushort> tail = Vector256.LoadUnsafe(ref Unsafe.Add(ref units, count - 16));
                    if (((head | tail) & Vector256.Create((ushort)0xFF80)) != Vector256<ushort>.Zero)
                    {
                        return -1;
                    }

                    Vector256<byte> narrow256 = Vector256.Narrow(head, tail);
                    narrow256.GetLower().StoreUnsafe(ref destination);
                    narrow256.GetUpper().StoreUnsafe(ref Unsafe.Add(ref destination, count - 16));
                    return count;
                }

                return NarrowLong(ref units, count, ref destination);
            }

            // 8 to 16 chars: the first eight and the last eight, overlapping.
            Vector128<ushort> first = Vector128.LoadUnsafe(ref units);
            Vector128<ushort> last = Vector128.LoadUnsafe(ref Unsafe.Add(ref units, count - 8));
            if (((first | last) & Vector128.Create((ushort)0xFF80)) != Vector128<ushort>.Zero)
            {
                return -1;
            }

            Vector128<byte> both = Vector128.Narrow(first, last);
            both.GetLower().StoreUnsafe(ref destination);
            both.GetUpper().StoreUnsafe(ref Unsafe.Add(ref destination, count - 8));
            return count;
        }

        for (int i = 0; i < count; i++)
        {
            ushort unit = Unsafe.Add(ref units, i);
            if (unit >= 0x80)
            {
                return -1;
            }

            Unsafe.Add(ref destination, i) = (byte)unit;
        }

        return count;
    }

    /// <summary>
    /// More than 16 chars (more than 64 with 512-bit vectors, which the short path takes up to there): blocks of the
    /// widest vector the machine has, the last block overlapping the one before (one 128-bit loop for every machine was
    /// slower on long lines).
    /// </summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int NarrowLong(ref ushort units, int count, ref byte destination)
    {
        if (Vector512.IsHardwareAccelerated)
        {
            // More than 64 chars here: 32 a step, one 512-bit block, then the last 32.
            Vector512<ushort> mask = Vector512.Create((ushort)0xFF80);
            Vector512<ushort> block;
            for (int i = 0; i < count - 32; i += 32)
            {
                block = Vector512.LoadUnsafe(ref Unsafe.Add(ref units, i));
                if ((block & mask) != Vector512<ushort>.Zero)
                {
                    return -1;
                }

                Vector512.Narrow(block, block).GetLower().StoreUnsafe(ref Unsafe.Add(ref destination, i));
            }

            block = Vector512.LoadUnsafe(ref Unsafe.Add(ref units, count - 32));
            if ((block & mask) != Vector512<ushort>.Zero)
            {
                return -1;
            }

            Vector512.Narrow(block, block).GetLower().StoreUnsafe(ref Unsafe.Add(ref destination, count - 32));
            return count;
        }

        if (Vector256.IsHardwareAccelerated)
        {
            // 16 a step, one 256-bit block, then the last 16.
            Vector256<ushort> mask = Vector256.Create((ushort)0xFF80);
            Vector256<ushort> block;
            for (int i = 0; i < count - 16; i += 16)
            {
                block = Vector256.LoadUnsafe(ref Unsafe.Add(ref units, i));
                if ((block & mask) != Vector256<ushort>.Zero)
                {
                    return -1;
                }

                Vector256.Narrow(block, block).GetLower().StoreUnsafe(ref Unsafe.Add(ref destination, i));
            }

            block = Vector256.LoadUnsafe(ref Unsafe.Add(ref units, count - 16));
            if ((block & mask) != Vector256<ushort>.Zero)
            {
                return -1;
            }

            Vector256.Narrow(block, block).GetLower().StoreUnsafe(ref Unsafe.Add(ref destination, count - 16));
            return count;
        }

        int last16 = count - 16;
        for (int i = 0; ; i += 16)
        {
            i = Math.Min(i, last16);
            Vector128<ushort> low = Vector128.LoadUnsafe(ref Unsafe.Add(ref units, i));
            Vector128<ushort> high = Vector128.LoadUnsafe(ref Unsafe.Add(ref units, i + 8));
            if (((low | high) & Vector128.Create((ushort)0xFF80)) != Vector128<ushort>.Zero)
            {
                return -1;
            }

            Vector128.Narrow(low, high).StoreUnsafe(ref Unsafe.Add(ref destination, i));
            if (i == last16)
            {
                return count;
            }
        }
    }
}
#endif
