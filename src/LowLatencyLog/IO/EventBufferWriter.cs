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
/// flush, a close). A process killed at any moment therefore leaves a file whose every complete line is a whole
/// event. One thing is beyond any writer's control: Linux stops copying a write that spans pages when a fatal signal
/// (SIGKILL) arrives during the call, so the file can end with the first part of one event, cut at a page boundary and
/// without its newline. Whoever appends to such a file must start on a new line.</para>
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
    private bool _unflushed;

    public EventBufferWriter(Encoding encoding, int bufferSize)
        : base(System.Globalization.CultureInfo.InvariantCulture)
    {
        _encoding = encoding;
        _encoder = encoding.GetEncoder();
        _bytes = new byte[Math.Max(bufferSize, encoding.GetMaxByteCount(2))];
    }

    public override Encoding Encoding => _encoding;

    /// <summary>Where complete events go; null while the file is not open (the bytes then stay buffered).</summary>
    /// <remarks>
    /// Give it an unbuffered stream (a <see cref="FileStream"/> opened with a buffer size of 0 or 1): a buffering stream
    /// would hand the operating system its own chunks, which end mid-event, and a kill would then leave a torn line.
    /// </remarks>
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
        if (buffer == null)
        {
            throw new ArgumentNullException(nameof(buffer));
        }

        if (index < 0 || count < 0 || count > buffer.Length - index)
        {
            throw new ArgumentOutOfRangeException(nameof(count), "index and count must describe a range inside buffer.");
        }

        if (count == 0)
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
    /// <remarks>The encoder is reset too, so a lone high surrogate left at the end of the previous event is dropped.</remarks>
    public void AbandonEvent()
    {
        _length = _complete;
        _encoder.Reset();
    }

    /// <summary>Writes every complete event to the stream in one call; does nothing when there is none.</summary>
    /// <remarks>
    /// If the stream throws, the buffer is left as it was, so nothing accepted is lost; a seekable stream is also put
    /// back where the write started, so the retry overwrites whatever part of the failed write reached it.
    /// </remarks>
    /// <returns>True if bytes were written.</returns>
    public bool WriteCompleteEvents()
    {
        if (_complete == 0 || _stream == null)
        {
            return false;
        }

        long start = _stream.CanSeek ? _stream.Position : -1;
        try
        {
            _stream.Write(_bytes, 0, _complete);
        }
        catch
        {
            RewindAfterFailedWrite(start);
            throw;
        }

        _unflushed = true;
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
    /// <remarks>
    /// Between events it also flushes the encoder, as <see cref="StreamWriter.Flush()"/> does, so a lone high surrogate
    /// at the end of the last event is written the same way. The stream is flushed only if something was written to it
    /// since the last flush.
    /// </remarks>
    public override void Flush()
    {
        if (_length == _complete)
        {
            FlushEncoder();
        }

        WriteCompleteEvents();
        if (_unflushed && _stream != null)
        {
            _stream.Flush();
            _unflushed = false;
        }
    }

    private unsafe void FlushEncoder()
    {
        EnsureRoom(_encoding.GetMaxByteCount(0));
        fixed (char* chars = _single)
        fixed (byte* bytes = &_bytes[_length])
        {
            _length += _encoder.GetBytes(chars, 0, bytes, _bytes.Length - _length, flush: true);
        }

        _complete = _length;
    }

    private void RewindAfterFailedWrite(long start)
    {
        if (start < 0)
        {
            return;
        }

        try
        {
            _stream!.Position = start;
        }
        catch (Exception)
        {
            // The stream cannot even seek now; the caller reopens the file and the retry appends.
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
