using System;
using System.IO;

namespace LowLatencyLog.Text;

// EventBufferWriter, continued: encoding the buffered chars, making room, and writing whole events out.
internal sealed partial class EventBufferWriter
{
    /// <summary>Writes every complete event to the stream in one call; does nothing when there is none.</summary>
    /// <remarks>
    /// If the stream throws, the buffer is left as it was, so nothing accepted is lost; a seekable stream is also put
    /// back where the write started, so the retry overwrites whatever part of the failed write reached it. After a
    /// success, a buffer that grew for a large event shrinks back to its configured size.
    /// </remarks>
    /// <returns>True if bytes were written.</returns>
    public bool WriteCompleteEvents()
    {
        EncodeChunk();
        if (_complete == 0 || _stream == null)
        {
            return false;
        }

        WriteOut();
        _suspended = false;
        Full = false;
        if (_bytes.Length > _initialSize && _length <= _initialSize)
        {
            var smaller = new byte[_initialSize];
            Buffer.BlockCopy(_bytes, 0, smaller, 0, _length);
            _bytes = smaller;
        }

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
        EncodeChunk();
        if (!InEvent)
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

    private void WriteLong(string value)
    {
        int offset = 0;
        while (offset < value.Length)
        {
            if (_charCount == CharCapacity)
            {
                EncodeChunk();
            }

            int n = Math.Min(value.Length - offset, CharCapacity - _charCount);
            value.CopyTo(offset, _chars, _charCount, n);
            _charCount += n;
            offset += n;
        }
    }

    private void DropCurrentEvent()
    {
        _charCount = _charComplete;
        _length = _complete;
        Dropping = false;
        _dropped++;
        ResetEncoder();
    }

    /// <summary>Encodes every pending char: the complete events, then the start of the current event.</summary>
    private void EncodeChunk()
    {
        if (_charComplete > 0)
        {
            // Fast path: room for the worst case, so the complete events need one encoder call.
            int worst = Math.Max(_encoding.GetMaxByteCount(_charComplete), _minRoom);
            if (_bytes.Length - _length >= worst || (TryWriteOut() && _bytes.Length - _length >= worst))
            {
                Encode(0, _charComplete, allowGrowth: false);
                MarkComplete();
            }
            else
            {
                EncodeEventByEvent();
            }
        }

        int partial = _charCount - _charComplete;
        if (partial > 0 && !_dropping)
        {
            if (!Encode(_charComplete, partial, allowGrowth: true))
            {
                // No room within the cap: the current event is lost whole (counted at its EndEvent).
                Dropping = true;
                _length = _complete;
                _encoder.Reset();
            }
        }

        _charCount = 0;
        _charComplete = 0;
        _eventsInChunk = 0;
    }

    /// <summary>Short of room: encodes the complete events one at a time, so each is kept or dropped whole.</summary>
    private void EncodeEventByEvent()
    {
        int start = 0;
        for (int i = 0; i < _eventsInChunk; i++)
        {
            int end = _eventEnds[i];
            if (_full)
            {
                _dropped++;
            }
            else if (Encode(start, end - start, allowGrowth: true))
            {
                MarkComplete();
            }
            else
            {
                _length = _complete;
                _encoder.Reset();
                _dropped++;
                Full = !StreamUsable;
            }

            start = end;
        }
    }

    private bool StreamUsable => _stream != null && !_suspended;

    /// <summary>
    /// Encodes chars [start, start + count) at the end of the bytes, making room as needed (growth only if
    /// <paramref name="allowGrowth"/>). False, with whatever this call produced removed, if the cap forbids the room.
    /// </summary>
    private bool Encode(int start, int count, bool allowGrowth)
    {
        int produced = 0;
        int wanted = _minRoom;
        while (true)
        {
            int room = _bytes.Length - _length;
            if (room < wanted)
            {
                if (!MakeRoom(wanted, allowGrowth))
                {
                    _length -= produced; // making room moves bytes, but this call's output stays at the end
                    return false;
                }

                room = _bytes.Length - _length;
            }

            _encoder.Convert(_chars, start, count, _bytes, _length, room, false, out int used, out int written, out _);
            _length += written;
            produced += written;
            start += used;
            count -= used;
            if (count == 0)
            {
                return true;
            }

            // Stopped for lack of room; if nothing fitted at all, ask for more than this room.
            wanted = used == 0 ? room + _minRoom : _minRoom;
        }
    }

    /// <summary>
    /// Makes room for <paramref name="needed"/> more bytes: writes the complete events, else grows within the cap.
    /// False when that is not enough.
    /// </summary>
    private bool MakeRoom(int needed, bool allowGrowth)
    {
        if (_complete > 0 && TryWriteOut() && _bytes.Length - _length >= needed)
        {
            return true;
        }

        if (!allowGrowth)
        {
            return false;
        }

        long size = _bytes.Length;
        while (size - _length < needed)
        {
            size *= 2;
        }

        if (size > _maxCapacity)
        {
            size = _maxCapacity;
            if (size - _length < needed)
            {
                return false;
            }
        }

        Array.Resize(ref _bytes, (int)size);
        return true;
    }

    /// <summary>An implicit write of the complete events to make room; never throws.</summary>
    private bool TryWriteOut()
    {
        if (_complete == 0 || !StreamUsable)
        {
            return false;
        }

        try
        {
            WriteOut();
            return true;
        }
        catch (Exception ex)
        {
            _suspended = true;
            _writeFailure = ex;
            return false;
        }
    }

    /// <summary>Writes [0, _complete) and moves whatever follows to the front.</summary>
    private void WriteOut()
    {
        Stream stream = _stream!;
        long start = stream.CanSeek ? stream.Position : -1;
        try
        {
            stream.Write(_bytes, 0, _complete);
        }
        catch
        {
            RewindAfterFailedWrite(stream, start);
            throw;
        }

        _unflushed = true;
        _writtenTotal += _complete;
        int rest = _length - _complete;
        if (rest > 0)
        {
            Buffer.BlockCopy(_bytes, _complete, _bytes, 0, rest);
        }

        _length = rest;
        _complete = 0;
    }

    private void FlushEncoder()
    {
#if NET8_0_OR_GREATER
        if (_utf8)
        {
            FlushHeldSurrogate();
            return;
        }
#endif
        int room = _bytes.Length - _length;
        int needed = _encoding.GetMaxByteCount(0);
        if (room < needed && !MakeRoom(needed, allowGrowth: true))
        {
            return;
        }

        _length += _encoder.GetBytes(_chars, 0, 0, _bytes, _length, flush: true);

        MarkComplete();
    }

    private void ResetEncoder()
    {
        _encoder.Reset();
#if NET8_0_OR_GREATER
        HeldHigh = '\0';
#endif
    }

    private void MarkComplete()
    {
        _complete = _length;
    }

    /// <summary>
    /// After a write that failed midway (a full disk takes part of it): the part that landed is cut off the file, so
    /// the file ends with a whole event, and the retry, in this file or the next, writes those events once.
    /// Truncating works on a full disk; if it fails, the position at least goes back.
    /// </summary>
    private static void RewindAfterFailedWrite(Stream stream, long start)
    {
        if (start < 0)
        {
            return;
        }

        try
        {
            if (stream.Length > start)
            {
                stream.SetLength(start);
            }
        }
        catch (Exception)
        {
            // Nothing more to do here: the position below still keeps the retry from leaving a gap.
        }

        try
        {
            stream.Position = start;
        }
        catch (Exception)
        {
            // The stream cannot even seek now; the caller reopens the file and the retry appends.
        }
    }
}
