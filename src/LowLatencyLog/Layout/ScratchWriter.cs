using System;
using System.Globalization;
using System.IO;
using System.Text;

namespace LowLatencyLog.Layout;

/// <summary>
/// A reusable char buffer behind a <see cref="TextWriter"/>, where a padded converter is rendered before it is cut
/// and padded. Like the writer log4net uses for the same purpose, it formats with the invariant culture.
/// </summary>
internal sealed class ScratchWriter : TextWriter
{
    private char[] _chars = new char[256];
    private int _length;

    public ScratchWriter()
        : base(CultureInfo.InvariantCulture)
    {
    }

    public override Encoding Encoding => Encoding.Unicode;

    public char[] Chars => _chars;

    public int Length => _length;

    public void Reset() => _length = 0;

    public override void Write(char value)
    {
        if (_length == _chars.Length)
        {
            Grow(1);
        }

        _chars[_length++] = value;
    }

    public override void Write(char[] buffer, int index, int count)
    {
        if (count > _chars.Length - _length)
        {
            Grow(count);
        }

        Array.Copy(buffer, index, _chars, _length, count);
        _length += count;
    }

    public override void Write(string? value)
    {
        if (value == null)
        {
            return;
        }

        if (value.Length > _chars.Length - _length)
        {
            Grow(value.Length);
        }

        value.CopyTo(0, _chars, _length, value.Length);
        _length += value.Length;
    }

#if NET8_0_OR_GREATER
    public override void Write(ReadOnlySpan<char> buffer)
    {
        if (buffer.Length > _chars.Length - _length)
        {
            Grow(buffer.Length);
        }

        buffer.CopyTo(_chars.AsSpan(_length));
        _length += buffer.Length;
    }
#endif

    private void Grow(int needed)
    {
        var bigger = new char[Math.Max(_chars.Length * 2, _length + needed)];
        Array.Copy(_chars, bigger, _length);
        _chars = bigger;
    }
}
