namespace LowLatencyLog.Layout;

/// <summary>Decimal digits written by hand into a char array: the same text as invariant formatting, no string made.</summary>
internal static class Digits
{
    /// <summary>Writes <paramref name="value"/> zero-padded to at least <paramref name="width"/> digits at <paramref name="index"/>; returns the new index.</summary>
    public static int WritePadded(char[] chars, int index, int value, int width)
    {
        int count = Count(value);
        for (int i = count; i < width; i++)
        {
            chars[index++] = '0';
        }

        int end = index + count;
        for (int i = end - 1; i >= index; i--)
        {
            chars[i] = (char)('0' + (value % 10));
            value /= 10;
        }

        return end;
    }

    /// <summary>Writes a whole number (sign included) at <paramref name="index"/>; returns the new index.</summary>
    public static int WriteInt64(long value, char[] chars, int index)
    {
        if (value == long.MinValue)
        {
            const string min = "-9223372036854775808";
            min.CopyTo(0, chars, index, min.Length);
            return index + min.Length;
        }

        if (value < 0)
        {
            chars[index++] = '-';
            value = -value;
        }

        int count = 1;
        for (long v = value; v >= 10; v /= 10)
        {
            count++;
        }

        int end = index + count;
        for (int i = end - 1; i >= index; i--)
        {
            chars[i] = (char)('0' + (int)(value % 10));
            value /= 10;
        }

        return end;
    }

    private static int Count(int value)
    {
        int count = 1;
        while (value >= 10)
        {
            value /= 10;
            count++;
        }

        return count;
    }
}
