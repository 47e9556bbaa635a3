using System;
using System.Text;

namespace LowLatencyLog.Capture;

/// <summary>
/// A message's text in storage that a queue slot owns and reuses lap after lap (log4j2's garbage-free ring keeps a
/// reusable text buffer per slot the same way). A slot that holds the caller's strings keeps them alive for as long
/// as the event waits, so a full buffer promotes them to the older generations; a slot that holds a copy in its own,
/// long-lived storage keeps nothing young alive.
/// </summary>
/// <remarks>
/// Written by the producer that claimed the slot, read by the worker after the slot's publication, and moved with the
/// event into the worker's batch (the batch's spare storage takes its place in the slot), so it is never written
/// while it is read. A message longer than <see cref="MaxLength"/> stays a string: a slot's storage never grows past it.
/// Queues of up to <see cref="Engine.ItemCopy.PrepareLimit"/> slots create it with the queue; larger ones on each slot's
/// first use.
/// </remarks>
internal sealed class MessageText
{
    /// <summary>The longest message copied into a slot's storage (chars): it bounds what the slots keep for good
    /// (docs/design.md, "A slot owns its message text"); a longer message is held as the caller's string.</summary>
    public const int MaxLength = 256;

    private const int SmallestCapacity = 128;

    private char[] _chars;
    private int _length = -1;

    public MessageText(int length)
    {
        _chars = new char[Capacity(length)];
    }

    /// <summary>Whether the storage holds the current event's message (else it is spare).</summary>
    public bool IsSet => _length >= 0;

    public int Length => _length;

    public char[] Chars => _chars;

#if NET8_0_OR_GREATER
    public ReadOnlySpan<char> Span => new ReadOnlySpan<char>(_chars, 0, _length);
#endif

    public void Set(string text)
    {
        text.CopyTo(0, Reserve(text.Length), 0, text.Length);
        _length = text.Length;
    }

    public void Set(StringBuilder text)
    {
        text.CopyTo(0, Reserve(text.Length), 0, text.Length);
        _length = text.Length;
    }

    public void Set(MessageText text)
    {
        int length = Math.Max(text._length, 0);
        Array.Copy(text._chars, Reserve(length), length);
        _length = text._length;
    }

    /// <summary>The storage, grown (once, to a power of two) if <paramref name="length"/> does not fit.</summary>
    private char[] Reserve(int length)
    {
        if (length > _chars.Length)
        {
            _chars = new char[Capacity(length)];
        }

        return _chars;
    }

    /// <summary>The storage holds no message now.</summary>
    public void Unset() => _length = -1;

    public override string ToString() => new string(_chars, 0, Math.Max(_length, 0));

    private static int Capacity(int length)
    {
        int capacity = SmallestCapacity;
        while (capacity < length)
        {
            capacity <<= 1;
        }

        return capacity;
    }
}
