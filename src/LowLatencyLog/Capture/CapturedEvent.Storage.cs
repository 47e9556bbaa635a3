using System;
using System.Runtime.CompilerServices;

namespace LowLatencyLog.Capture;

// CapturedEvent, continued: storing an item in a slot, taking it out into the worker's batch, clearing it
// (CapturedEventStorage is how the queues reach these).
internal partial struct CapturedEvent
{
    /// <summary>
    /// Copies a producer's item (or another slot's event) into a slot: the message text into the slot's region of the
    /// buffer's arena (<see cref="MessageText.AllocateArena"/>; a slot without one gets a region of its own on its first
    /// use), never a reference to the caller's message string unless it is too long for the region. Never throws but
    /// for out of memory (a slot's own region): it runs between a claim and its publication, and the queues publish a
    /// skipped mark if it does.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Store(ref CapturedEvent destination, in CapturedEvent source)
    {
        char[]? chars = destination.TextChars;
        int offset = destination.TextOffset;
        int length = -1;
        string? message = source.Message;
        if (source.Formatted is { } formatted)
        {
            // Only a message that fits the region comes in the builder: a longer one became a string before the claim.
            length = formatted.Length;
            formatted.CopyTo(0, chars ?? OwnRegion(out chars, out offset), offset, length);
        }
        else if (source.HasText)
        {
            length = source.TextLength;
            Array.Copy(source.TextChars!, source.TextOffset, chars ?? OwnRegion(out chars, out offset), offset, length);
        }
        else if (message != null && message.Length <= MessageText.MaxLength)
        {
            length = message.Length;
            message.CopyTo(0, chars ?? OwnRegion(out chars, out offset), offset, length);
            message = null;
        }

        Write(ref destination, in source, message, chars, offset, length);
    }

    /// <summary>A region of the slot's own, for a slot that has none in an arena.</summary>
    [MethodImpl(MethodImplOptions.NoInlining)]
    private static char[] OwnRegion(out char[]? chars, out int offset)
    {
        offset = 0;
        chars = MessageText.AllocateRegion();
        return chars;
    }

    /// <summary>
    /// Worker side, draining a slot: moves its event into the worker's batch entry, and gives the slot the entry's
    /// region (its event is delivered) in place of the region that leaves with the event: two references and two
    /// offsets change places, nothing is copied or allocated.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Take(ref CapturedEvent destination, ref CapturedEvent slot)
    {
        char[]? spare = destination.TextChars;
        int spareOffset = destination.TextOffset;
        Write(ref destination, in slot, slot.Message, slot.TextChars, slot.TextOffset, slot.TextLength);
        Clear(ref slot, spare, spareOffset);
    }

    /// <summary>Forgets a delivered event's references, keeping the entry's text region for the next one.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void ClearDelivered(ref CapturedEvent item) => Clear(ref item, item.TextChars, item.TextOffset);

    /// <summary>Forgets an entry's references and gives it the text region at <paramref name="offset"/> of
    /// <paramref name="chars"/>, holding no message.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Clear(ref CapturedEvent item, char[]? chars, int offset)
    {
#if NET8_0_OR_GREATER
        // Stored field by field (ItemCopy says why); constants need no write barrier, nor does an unchanged arena.
        item.Level = null;
        item.LoggerName = null;
        item.Repository = null;
        item.Message = null;
        if (!ReferenceEquals(item.TextChars, chars))
        {
            item.TextChars = chars;
        }

        item.TextOffset = offset;
        item.TextLength = -1;
        item.Formatted = null;
        item.ThreadName = null;
        item.ExceptionString = null;
        item.Context = null;
        item.MessageObject = null;
        item.ExceptionObject = null;
#else
        item = new CapturedEvent(chars, offset);
#endif
    }

#if NET8_0_OR_GREATER
    /// <summary>Copies <paramref name="source"/> into a slot one field at a time (<see cref="Engine.ItemCopy"/> says why).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Write(ref CapturedEvent destination, in CapturedEvent source, string? message, char[]? chars, int offset, int length)
    {
        destination.Level = source.Level;
        destination.LoggerName = source.LoggerName;
        destination.Repository = source.Repository;
        destination.TimeStampUtc = source.TimeStampUtc;
        if (message != null)
        {
            destination.Message = message;
        }
        else
        {
            destination.Message = null;
        }

        // The same arena as before in a queue's slots: no write barrier.
        if (!ReferenceEquals(destination.TextChars, chars))
        {
            destination.TextChars = chars;
        }

        destination.TextOffset = offset;
        destination.TextLength = length;

        destination.Formatted = null;
        destination.ThreadName = source.ThreadName;

        // The usual values stored as constants, which need no write barrier: each barrier is a call.
        if (source.ExceptionString is { Length: > 0 } exception)
        {
            destination.ExceptionString = exception;
        }
        else
        {
            destination.ExceptionString = source.ExceptionString == null ? null : string.Empty;
        }

        if (source.Context is { } context)
        {
            destination.Context = context;
        }
        else
        {
            destination.Context = null;
        }

        if (source.MessageObject is { } messageObject)
        {
            destination.MessageObject = messageObject;
            destination.ExceptionObject = source.ExceptionObject;
        }
        else
        {
            destination.MessageObject = null;
            destination.ExceptionObject = source.ExceptionObject;
        }
    }
#else
    private static void Write(ref CapturedEvent destination, in CapturedEvent source, string? message, char[]? chars, int offset, int length) =>
        destination = new CapturedEvent(in source, message, chars, offset, length);
#endif
}
