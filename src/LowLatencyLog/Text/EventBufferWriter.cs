using System;
using System.IO;
using System.Runtime.CompilerServices;
using System.Text;
using LowLatencyLog.Runtime;

namespace LowLatencyLog.Text;

/// <summary>
/// A <see cref="TextWriter"/> that collects what a layout writes, encodes it into one large byte buffer and hands the
/// stream only whole events: every <see cref="Stream.Write(byte[], int, int)"/> it makes ends where an event ended.
/// </summary>
/// <remarks>
/// <para>UTF-8 (with its standard replacement of broken surrogates) is encoded as it is written, straight into the byte
/// buffer (<c>EventBufferWriter.Utf8.cs</c>). Any other encoding goes through a char buffer:
/// <see cref="EndEvent"/> only records where the event ended. The chars are encoded
/// in one call when the char buffer fills or when bytes are wanted (<see cref="WriteCompleteEvents"/>, a flush), so a
/// layout that makes ten small writes per event costs a copy per write and a share of one encoder call, not ten
/// encoder calls. When the byte buffer has no room, the complete events are written to the stream in one call and the
/// part of the current event already encoded stays; an event larger than the buffer makes the buffer grow, so it is
/// still written in one piece, and the buffer shrinks back to its configured size once that event has been written.
/// A process killed at any moment therefore leaves a file whose every complete line is a whole event. One thing is
/// beyond any writer's control: Linux stops copying a write that spans pages when a fatal signal (SIGKILL) arrives
/// during the call, so the file can end with the first part of one event, cut at a page boundary and without its
/// newline. Whoever appends to such a file must start on a new line.</para>
/// <para>Growth is capped (<c>maxCapacity</c>). While the stream is missing or failing, complete events pile up to the
/// cap; beyond it each new event is dropped whole and counted in <see cref="DroppedEvents"/>, never half-kept. An
/// event larger than the cap is dropped the same way. So an outage of any length costs bounded memory.</para>
/// <para>The bytes are those a <see cref="StreamWriter"/> with the same encoding writes for the same text: both encode
/// through one stateful <see cref="Encoder"/> of that encoding (so a surrogate pair split across two writes, or across
/// two encoder calls, is encoded correctly), and both format numbers with the current culture. The preamble
/// (byte-order mark) is not written here; the file appender writes it to a new file.</para>
/// <para>Write calls never throw because of the stream: a failure while making room is kept for the owner
/// (<see cref="TakeWriteFailure"/>) and implicit writes stop until an explicit <see cref="WriteCompleteEvents"/>
/// succeeds. Not thread-safe: the appender that owns it serializes access.</para>
/// </remarks>
internal sealed partial class EventBufferWriter : TextWriter
{
    /// <summary>Default cap on the byte buffer: enough for minutes of a busy log while the file is unavailable.</summary>
    public const int DefaultMaxCapacity = 16 * 1024 * 1024;

    // 4096 chars: ~40 typical events per encoder call; small enough to stay in L1 with the bytes it produces.
    private const int CharCapacity = 4096;

    // Event ends recorded per char chunk, used only when the bytes must be encoded one event at a time (no room).
    private const int MaxEventsPerChunk = 512;

    private readonly Encoding _encoding;

    private readonly Encoder _encoder;

    private readonly int _initialSize;

    private readonly int _maxCapacity;

    private readonly int _minRoom;

    // Chars not encoded yet. [0, _charComplete) belong to complete events, whose ends are in _eventEnds;
    // [_charComplete, _charCount) to the event being written.
    private readonly char[] _chars = new char[CharCapacity];

    private readonly int[] _eventEnds = new int[MaxEventsPerChunk];

    private int _charCount;

    private int _charComplete;

    private int _eventsInChunk;

    // Encoded bytes. [0, _complete) are complete events; [_complete, _length) the encoded start of the current event.
    private byte[] _bytes;

    private int _length;

    private int _complete;

    private Stream? _stream;

    private bool _unflushed;

    // Cap handling: _dropping marks the current event as lost; _full says the buffer reached the cap with no usable
    // stream, so each new event is dropped at EndEvent until a write succeeds or a stream is attached.
    private bool _dropping;

    private bool _full;

    private long _dropped;

    // Bytes handed to the stream since creation: with the complete bytes still here, what a size-based roll counts.
    private long _writtenTotal;

    // Set when an implicit write (making room inside a Write call) failed; cleared by a successful explicit write.
    private bool _suspended;

    private Exception? _writeFailure;

    /// <param name="encoding">The encoding (its preamble is not written).</param>
    /// <param name="bufferSize">The byte buffer's size: complete events are written when it is full.</param>
    /// <param name="maxCapacity">The most the byte buffer may grow to; null for the larger of
    /// <paramref name="bufferSize"/> and <see cref="DefaultMaxCapacity"/>.</param>
    public EventBufferWriter(Encoding encoding, int bufferSize, int? maxCapacity = null)
        : base(null) // as StreamWriter: numbers are formatted with the current culture
    {
        _encoding = encoding ?? throw new ArgumentNullException(nameof(encoding));
        _encoder = encoding.GetEncoder();
        _minRoom = encoding.GetMaxByteCount(2);
        _initialSize = Math.Max(bufferSize, _minRoom);
        _maxCapacity = Math.Max(_initialSize, maxCapacity ?? Math.Max(bufferSize, DefaultMaxCapacity));
        _bytes = Prefault.Touch(new byte[_initialSize]);
#if NET8_0_OR_GREATER
        _utf8 = IsStandardUtf8(encoding);
        _ready = _utf8;
#endif
    }

    public override Encoding Encoding => _encoding;

    // The two flags are set through these, so the UTF-8 short paths' one flag stays right.
    private bool Dropping
    {
        set
        {
            _dropping = value;
#if NET8_0_OR_GREATER
            _ready = IsReady();
#endif
        }
    }

    private bool Full
    {
        set
        {
            _full = value;
#if NET8_0_OR_GREATER
            _ready = IsReady();
#endif
        }
    }

    /// <summary>Where complete events go; null while the file is not open (the bytes then stay buffered).</summary>
    /// <remarks>
    /// Give it an unbuffered stream (a <see cref="FileStream"/> opened with a buffer size of 0 or 1): a buffering stream
    /// would hand the operating system its own chunks, which end mid-event, and a kill would then leave a torn line.
    /// Setting a stream resumes writing after a failure.
    /// </remarks>
    public Stream? Stream
    {
        get => _stream;
        set
        {
            _stream = value;
            _suspended = false;
            Full = false;
        }
    }

    /// <summary>Bytes of complete events encoded and not yet handed to the stream.</summary>
    public int CompleteLength => _complete;

    /// <summary>Bytes encoded in all, the encoded start of the event being written included.</summary>
    public int Length => _length;

    /// <summary>The byte buffer's current size (above the configured size only while a large event is held).</summary>
    public int Capacity => _bytes.Length;

    /// <summary>Events dropped whole since creation because the buffer had reached its cap.</summary>
    public long DroppedEvents => _dropped;

    /// <summary>Bytes of complete events encoded since creation; chars not encoded yet are not counted.</summary>
    public long EncodedBytes => _writtenTotal + _complete;

    /// <summary>
    /// Between events: the bytes written and encoded so far, all of them complete events. Past <see cref="EncodedBytes"/>
    /// it counts the start of the last event, encoded when the char buffer filled in its middle while its end still
    /// waits as chars (with a non-UTF-8 encoding), which <see cref="EncodedBytes"/> leaves out.
    /// </summary>
    public long EncodedBytesBetweenEvents => _writtenTotal + _length;

    /// <summary>Chars of complete events not encoded yet (see <see cref="EncodePending"/>).</summary>
    public int PendingChars => _charComplete;

    /// <summary>True while chars or bytes of complete events wait to be written.</summary>
    public bool HasCompleteEvents => _complete > 0 || _charComplete > 0;

    /// <summary>True while an event has been started and not ended.</summary>
    public bool InEvent => _charCount > _charComplete || _length > _complete || _dropping;

    /// <summary>
    /// The exception of a write that failed while making room inside a Write call (returned once, then null).
    /// </summary>
    public Exception? TakeWriteFailure()
    {
        Exception? failure = _writeFailure;
        _writeFailure = null;
        return failure;
    }

    /// <summary>The most chars <see cref="Reserve"/> can make room for.</summary>
    public const int MaxReserve = CharCapacity;

#if NET8_0_OR_GREATER
    public override void Write(ReadOnlySpan<char> buffer)
    {
        if (_utf8)
        {
            WriteUtf8(buffer);
            return;
        }

        while (buffer.Length > 0)
        {
            if (_charCount == CharCapacity)
            {
                EncodeChunk();
            }

            int n = Math.Min(buffer.Length, CharCapacity - _charCount);
            buffer.Slice(0, n).CopyTo(_chars.AsSpan(_charCount));
            _charCount += n;
            buffer = buffer.Slice(n);
        }
    }

#endif

    /// <summary>Marks the end of an event: everything written so far may go to the stream.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public void EndEvent()
    {
#if NET8_0_OR_GREATER
        if (_ready)
        {
            _complete = _length; // the event's bytes are all encoded already
            return;
        }
#endif
        EndEventSlow();
    }

    private void EndEventSlow()
    {
        if (_dropping || _full)
        {
            DropCurrentEvent();
            return;
        }

#if NET8_0_OR_GREATER
        if (_utf8)
        {
            MarkComplete();
            return;
        }
#endif
        _charComplete = _charCount;
        _eventEnds[_eventsInChunk++] = _charCount;
        if (_eventsInChunk == MaxEventsPerChunk)
        {
            EncodeChunk();
        }
    }

    /// <summary>Encodes the chars written so far, so <see cref="EncodedBytes"/> and <see cref="CompleteLength"/> are exact.</summary>
    public void EncodePending() => EncodeChunk();

    /// <summary>Drops the event being written (a layout that failed half-way), keeping the complete ones.</summary>
    /// <remarks>The encoder is reset too, so a lone high surrogate left at the end of the previous event is dropped.</remarks>
    public void AbandonEvent()
    {
        _charCount = _charComplete;
        _length = _complete;
        Dropping = false;
        ResetEncoder();
    }

    // The TextWriter calls that put text into the current event.
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
