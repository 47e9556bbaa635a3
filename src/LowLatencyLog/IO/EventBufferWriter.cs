using System;
using System.IO;
using System.Text;

namespace LowLatencyLog.IO;

/// <summary>
/// A <see cref="TextWriter"/> that encodes what a layout writes straight into one large byte buffer and hands the
/// stream only whole events: every <see cref="Stream.Write(byte[], int, int)"/> it makes ends where an event ended.
/// </summary>
/// <remarks>
/// <para>A layout renders an event into this writer; the caller then calls <see cref="EndEvent"/>. When the buffer has
/// no room for what is being written, the complete events are written to the stream in one call and the part of the
/// current event already encoded moves to the front; an event larger than the whole buffer makes the buffer grow, so it
/// is still written in one piece. <see cref="WriteCompleteEvents"/> writes what is complete (the end of a batch, a
/// flush, a close). A process killed at any moment therefore leaves only whole events in the file.</para>
/// <para>The bytes are those a <see cref="StreamWriter"/> with the same encoding writes for the same text: both encode
/// through one stateful <see cref="Encoder"/> of that encoding, so a surrogate pair split across two writes is encoded
/// correctly. The preamble (byte-order mark) is not written here; the file appender writes it to a new file.</para>
/// <para>Not thread-safe: the appender that owns it serializes access.</para>
/// </remarks>
internal sealed class EventBufferWriter : TextWriter
{
    private readonly Encoding _encoding;
    private readonly Encoder _encoder;
    private readonly char[] _single = new char[1];
    private byte[] _bytes;
    private int _length;
    private int _complete;
    private Stream? _stream;

    public EventBufferWriter(Encoding encoding, int bufferSize)
        : base(System.Globalization.CultureInfo.InvariantCulture)
    {
        _encoding = encoding;
        _encoder = encoding.GetEncoder();
        _bytes = new byte[Math.Max(bufferSize, encoding.GetMaxByteCount(2))];
    }

    public override Encoding Encoding => _encoding;

    /// <summary>Where complete events go; null while the file is not open (the bytes then stay buffered).</summary>
    public Stream? Stream
    {
        get => _stream;
        set => _stream = value;
    }

    /// <summary>Bytes of complete events not yet handed to the stream.</summary>
    public int CompleteLength => _complete;

    /// <summary>Bytes buffered in all, the event being written included.</summary>
    public int Length => _length;

    /// <summary>The buffer's current size in bytes (it grows only for an event larger than itself).</summary>
    public int Capacity => _bytes.Length;

    public override void Write(char value)
    {
        _single[0] = value;
        Write(_single, 0, 1);
    }

    public override unsafe void Write(char[] buffer, int index, int count)
    {
        if (count <= 0)
        {
            return;
        }

        EnsureRoom(_encoding.GetMaxByteCount(count));
        fixed (char* chars = &buffer[index])
        fixed (byte* bytes = &_bytes[_length])
        {
            _length += _encoder.GetBytes(chars, count, bytes, _bytes.Length - _length, flush: false);
        }
    }

    public override unsafe void Write(string? value)
    {
        if (string.IsNullOrEmpty(value))
        {
            return;
        }

        // Long strings go in chunks so the room needed stays bounded by the buffer, not by the string.
        int chunk = Math.Max(1, (_bytes.Length / _encoding.GetMaxByteCount(1)) / 2);
        fixed (char* start = value)
        {
            for (int offset = 0; offset < value!.Length; offset += chunk)
            {
                int count = Math.Min(chunk, value.Length - offset);
                EnsureRoom(_encoding.GetMaxByteCount(count));
                fixed (byte* bytes = &_bytes[_length])
                {
                    _length += _encoder.GetBytes(start + offset, count, bytes, _bytes.Length - _length, flush: false);
                }
            }
        }
    }

    /// <summary>Marks the end of an event: everything written so far may go to the stream.</summary>
    public void EndEvent() => _complete = _length;

    /// <summary>Drops the event being written (a layout that failed half-way), keeping the complete ones.</summary>
    public void AbandonEvent()
    {
        _length = _complete;
        _encoder.Reset();
    }

    /// <summary>Writes every complete event to the stream in one call; does nothing when there is none.</summary>
    /// <remarks>If the stream throws, the buffer is left as it was, so nothing accepted is lost.</remarks>
    /// <returns>True if bytes were written.</returns>
    public bool WriteCompleteEvents()
    {
        if (_complete == 0 || _stream == null)
        {
            return false;
        }

        _stream.Write(_bytes, 0, _complete);
        int partial = _length - _complete;
        if (partial > 0)
        {
            Buffer.BlockCopy(_bytes, _complete, _bytes, 0, partial);
        }

        _length = partial;
        _complete = 0;
        return true;
    }

    /// <summary>Writes the complete events and flushes the stream to the operating system.</summary>
    public override void Flush()
    {
        if (WriteCompleteEvents())
        {
            _stream!.Flush();
        }
    }

    private void EnsureRoom(int needed)
    {
        if (_bytes.Length - _length >= needed)
        {
            return;
        }

        if (_stream != null && _complete > 0)
        {
            WriteCompleteEvents();
            if (_bytes.Length - _length >= needed)
            {
                return;
            }
        }

        // One event larger than the buffer (or no stream yet): grow, so the event is still written whole.
        int size = _bytes.Length;
        while (size - _length < needed)
        {
            size = checked(size * 2);
        }

        Array.Resize(ref _bytes, size);
    }
}
