#if NET8_0_OR_GREATER
using System.Runtime.CompilerServices;
using System.Runtime.Intrinsics;

namespace LowLatencyLog.IO;

/// <summary>
/// ASCII text narrowed into bytes with a few vector instructions: what almost every log line is made of. Short strings
/// (a message, a logger name) cost the library's general transcoders more in set-up than in work; here a string of 8 to
/// 32 chars is two overlapping loads and stores, with no loop and no call.
/// </summary>
internal static class Utf8Text
{
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

    /// <summary>More than 16 chars: blocks of the widest vector the machine has, the last block overlapping.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static int NarrowLong(ref ushort units, int count, ref byte destination)
    {
        if (Vector512.IsHardwareAccelerated && count >= 32)
        {
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

        if (Vector256.IsHardwareAccelerated && count >= 16)
        {
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

        // A machine whose widest vector is 128 bits.
        Vector128<ushort> mask128 = Vector128.Create((ushort)0xFF80);
        Vector128<ushort> block128;
        for (int i = 0; i < count - 8; i += 8)
        {
            block128 = Vector128.LoadUnsafe(ref Unsafe.Add(ref units, i));
            if ((block128 & mask128) != Vector128<ushort>.Zero)
            {
                return -1;
            }

            Vector128.Narrow(block128, block128).GetLower().StoreUnsafe(ref Unsafe.Add(ref destination, i));
        }

        block128 = Vector128.LoadUnsafe(ref Unsafe.Add(ref units, count - 8));
        if ((block128 & mask128) != Vector128<ushort>.Zero)
        {
            return -1;
        }

        Vector128.Narrow(block128, block128).GetLower().StoreUnsafe(ref Unsafe.Add(ref destination, count - 8));
        return count;
    }
}
#endif
