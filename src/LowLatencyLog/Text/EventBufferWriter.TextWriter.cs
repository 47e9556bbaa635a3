using System;

namespace LowLatencyLog.Text;

// EventBufferWriter, continued: the TextWriter calls that put text into the current event.
internal sealed partial class EventBufferWriter
{
    public override void Write(char value)
    {
#if NET8_0_OR_GREATER
        if (_utf8)
        {
            WriteUtf8(value);
            return;
        }
#endif
        if (_charCount == CharCapacity)
        {
            EncodeChunk();
        }

        _chars[_charCount++] = value;
    }

    public override void Write(char[] buffer, int index, int count)
    {
        if (buffer == null)
        {
            throw new ArgumentNullException(nameof(buffer));
        }

        if (index < 0 || count < 0 || count > buffer.Length - index)
        {
            throw new ArgumentOutOfRangeException(nameof(count), "index and count must describe a range inside buffer.");
        }

#if NET8_0_OR_GREATER
        if (_utf8)
        {
            WriteUtf8(new ReadOnlySpan<char>(buffer, index, count));
            return;
        }
#endif

        while (count > 0)
        {
            if (_charCount == CharCapacity)
            {
                EncodeChunk();
            }

            int n = Math.Min(count, CharCapacity - _charCount);
#if NET8_0_OR_GREATER
            buffer.AsSpan(index, n).CopyTo(_chars.AsSpan(_charCount));
#else
            Array.Copy(buffer, index, _chars, _charCount, n);
#endif
            _charCount += n;
            index += n;
            count -= n;
        }
    }

    /// <summary>Appends chars the caller owns (the fast layout's assembled event): no argument checks on the short path.</summary>
    public void Append(char[] chars, int count)
    {
#if NET8_0_OR_GREATER
        if (_utf8)
        {
            WriteUtf8(new ReadOnlySpan<char>(chars, 0, count));
            return;
        }
#endif
        if (count <= CharCapacity - _charCount)
        {
#if NET8_0_OR_GREATER
            chars.AsSpan(0, count).CopyTo(_chars.AsSpan(_charCount));
#else
            Array.Copy(chars, 0, _chars, _charCount, count);
#endif
            _charCount += count;
            return;
        }

        Write(chars, 0, count);
    }

    /// <summary>
    /// Room for <paramref name="count"/> chars (at most <see cref="MaxReserve"/>) in the char buffer, for a layout part
    /// that formats in place: it writes from <paramref name="index"/> and then calls <see cref="Advance"/>.
    /// </summary>
    public char[] Reserve(int count, out int index)
    {
#if NET8_0_OR_GREATER
        if (_utf8)
        {
            index = 0; // the char buffer is only a scratch area then: Advance encodes from its start
            return _chars;
        }
#endif
        if (CharCapacity - _charCount < count)
        {
            EncodeChunk();
        }

        index = _charCount;
        return _chars;
    }

    /// <summary>Takes the chars written after <see cref="Reserve"/>.</summary>
    public void Advance(int count)
    {
#if NET8_0_OR_GREATER
        if (_utf8)
        {
            WriteUtf8(new ReadOnlySpan<char>(_chars, 0, count));
            return;
        }
#endif
        _charCount += count;
    }

    public override void Write(string? value)
    {
        if (value == null)
        {
            return;
        }

#if NET8_0_OR_GREATER
        if (_utf8)
        {
            WriteUtf8(value.AsSpan());
            return;
        }
#endif
        int length = value.Length;
        int count = _charCount;
        char[] chars = _chars;
        if (length <= chars.Length - count)
        {
            if (length == 1)
            {
                chars[count] = value[0]; // a newline or a separator: no copy call for one char
            }
            else
            {
#if NET8_0_OR_GREATER
                value.AsSpan().CopyTo(chars.AsSpan(count));
#else
                value.CopyTo(0, chars, count, length);
#endif
            }

            _charCount = count + length;
            return;
        }

        WriteLong(value);
    }

#if NET8_0_OR_GREATER
    // log4net's %date writes its milliseconds through Write(int): formatting into the char buffer, with the same
    // provider the base class would use, saves the string the base class allocates.
    public override void Write(int value)
    {
        if (_utf8)
        {
            WriteUtf8(value);
            return;
        }

        if (CharCapacity - _charCount < 11)
        {
            EncodeChunk();
        }

        if (value.TryFormat(_chars.AsSpan(_charCount), out int written, default, FormatProvider))
        {
            _charCount += written;
        }
        else
        {
            base.Write(value);
        }
    }

    public override void Write(long value)
    {
        if (_utf8)
        {
            WriteUtf8(value);
            return;
        }

        if (CharCapacity - _charCount < 20)
        {
            EncodeChunk();
        }

        if (value.TryFormat(_chars.AsSpan(_charCount), out int written, default, FormatProvider))
        {
            _charCount += written;
        }
        else
        {
            base.Write(value);
        }
    }
#endif
}
