using System;
using System.Globalization;
using System.IO;
using System.Runtime.CompilerServices;
using System.Text;
using LowLatencyLog.Text;

namespace LowLatencyLog.Layout;

/// <summary>
/// Where the compiled parts of one event are assembled before they go to the appender's writer in one call: a sealed
/// char buffer, so the parts' own writes are direct copies rather than virtual <see cref="TextWriter"/> calls. It is a
/// <see cref="TextWriter"/> too, for what log4net writes itself (a message object's renderer, an exception text).
/// </summary>
/// <remarks>
/// <para>A long string (a message, an exception) is not copied twice: what is pending goes to the target first and the
/// string is written to the target directly. While a padded converter is captured (<see cref="BeginCapture"/>),
/// everything stays in the buffer so it can be cut and padded in place.</para>
/// <para>As seen from a renderer, the writer is the one log4net would hand it: the target's format provider, or the
/// invariant culture inside a padded converter (log4net renders those into an invariant string writer).</para>
/// </remarks>
internal sealed class LayoutBuffer : TextWriter
{
    // Strings at least this long are written to the target directly rather than copied into the buffer.
    private const int DirectLength = 64;

    private char[] _chars = new char[512];
    private int _length;
    private int _captures;
    private TextWriter _target = Null;
    private EventBufferWriter? _events;

    public LayoutBuffer()
        : base(CultureInfo.InvariantCulture)
    {
    }

    public override Encoding Encoding => _target.Encoding;

    public override IFormatProvider FormatProvider => _captures > 0 ? CultureInfo.InvariantCulture : _target.FormatProvider;

    public char[] Chars => _chars;

    public int Length => _length;

    public void Begin(TextWriter target)
    {
        _target = target;
        _events = target as EventBufferWriter;
        _length = 0;
        _captures = 0;
    }

    /// <summary>Hands what is pending to the target.</summary>
    public void End()
    {
        if (_length > 0)
        {
            if (_events != null)
            {
                _events.Append(_chars, _length); // sealed: a direct call
            }
            else
            {
                _target.Write(_chars, 0, _length);
            }

            _length = 0;
        }

        _target = Null;
        _events = null;
    }

    /// <summary>Room for <paramref name="count"/> more chars at <see cref="Length"/>; <see cref="Advance"/> after writing them.</summary>
    public char[] Reserve(int count)
    {
        if (_chars.Length - _length < count)
        {
            Grow(count);
        }

        return _chars;
    }

    public void Advance(int count) => _length += count;

    public void SetLength(int length) => _length = length;

    /// <summary>Starts keeping everything in the buffer (for a padded converter); returns where its text starts.</summary>
    public int BeginCapture()
    {
        _captures++;
        return _length;
    }

    /// <summary>Cuts the captured text to its last <paramref name="max"/> chars and pads it with spaces to <paramref name="min"/>.</summary>
    public void EndCapture(int start, int min, int max, bool leftAlign)
    {
        _captures--;
        int length = _length - start;
        if (length > max)
        {
            Array.Copy(_chars, _length - max, _chars, start, max); // log4net keeps the end
            length = max;
            _length = start + max;
        }

        if (length >= min)
        {
            return;
        }

        int pad = min - length;
        Reserve(pad);
        if (leftAlign)
        {
            for (int i = 0; i < pad; i++)
            {
                _chars[_length + i] = ' ';
            }
        }
        else
        {
            Array.Copy(_chars, start, _chars, start + pad, length);
            for (int i = 0; i < pad; i++)
            {
                _chars[start + i] = ' ';
            }
        }

        _length += pad;
    }

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
        if (count >= DirectLength && _captures == 0)
        {
            Pass();
            _target.Write(buffer, index, count);
            return;
        }

        if (count > _chars.Length - _length)
        {
            Grow(count);
        }

        Array.Copy(buffer, index, _chars, _length, count);
        _length += count;
    }

    public override void Write(string? value) => Append(value);

    /// <summary>The parts' own string write: a short string is copied inline, the rest takes the slow path.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void Append(string? value)
    {
        if (value == null)
        {
            return;
        }

        int count = value.Length;
        if (count < DirectLength && count <= _chars.Length - _length)
        {
#if NET8_0_OR_GREATER
            value.AsSpan().CopyTo(_chars.AsSpan(_length));
#else
            value.CopyTo(0, _chars, _length, count);
#endif
            _length += count;
            return;
        }

        WriteLong(value);
    }

#if NET8_0_OR_GREATER
    public override void Write(ReadOnlySpan<char> buffer)
    {
        if (buffer.Length >= DirectLength && _captures == 0)
        {
            Pass();
            _target.Write(buffer);
            return;
        }

        if (buffer.Length > _chars.Length - _length)
        {
            Grow(buffer.Length);
        }

        buffer.CopyTo(_chars.AsSpan(_length));
        _length += buffer.Length;
    }
#endif

    [MethodImpl(MethodImplOptions.NoInlining)]
    private void WriteLong(string value)
    {
        if (value.Length >= DirectLength && _captures == 0)
        {
            Pass();
            _target.Write(value);
            return;
        }

        if (value.Length > _chars.Length - _length)
        {
            Grow(value.Length);
        }

        value.CopyTo(0, _chars, _length, value.Length);
        _length += value.Length;
    }

    private void Pass()
    {
        if (_length > 0)
        {
            _target.Write(_chars, 0, _length);
            _length = 0;
        }
    }

    private void Grow(int needed)
    {
        var bigger = new char[Math.Max(_chars.Length * 2, _length + needed)];
        Array.Copy(_chars, bigger, _length);
        _chars = bigger;
    }
}
