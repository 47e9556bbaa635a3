using System.Runtime.CompilerServices;

namespace LowLatencyLog.Capture;

// CapturedEvent, continued: storing an item in a slot, taking it out into the worker's batch, clearing it
// (CapturedEventStorage is how the queues reach these).
internal partial struct CapturedEvent
{
    /// <summary>
    /// Copies a producer's item (or another slot's event) into a slot: the message text into the storage the slot owns
    /// (<paramref name="destination"/>'s <see cref="Text"/>, created on the slot's first use), never a reference to the
    /// caller's message string unless it is too long for that storage. Never throws but for out of memory (a slot's
    /// first storage): it runs between a claim and its publication, and the queues publish a skipped mark if it does.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Store(ref CapturedEvent destination, in CapturedEvent source)
    {
        MessageText? text = destination.Text;
        string? message = source.Message;
        if (source.Formatted is { } formatted)
        {
            // Only a message that fits the storage comes in the builder: a longer one became a string before the claim.
            (text ??= new MessageText(formatted.Length)).Set(formatted);
        }
        else if (source.Text is { IsSet: true } other)
        {
            (text ??= new MessageText(other.Length)).Set(other);
        }
        else if (message != null && message.Length <= MessageText.MaxLength)
        {
            (text ??= new MessageText(message.Length)).Set(message);
            message = null;
        }
        else
        {
            text?.Unset();
        }

        Write(ref destination, in source, message, text);
    }

    /// <summary>
    /// Worker side, draining a slot: moves its event into the worker's batch entry, and gives the slot the entry's
    /// storage (its event is delivered) in place of the storage that leaves with the event.
    /// </summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Take(ref CapturedEvent destination, ref CapturedEvent slot)
    {
        MessageText? spare = destination.Text;
        Write(ref destination, in slot, slot.Message, slot.Text);
        spare?.Unset();
        Clear(ref slot, spare);
    }

    /// <summary>Forgets a delivered event's references, keeping its text storage for the next one.</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    public static void Clear(ref CapturedEvent item, MessageText? keep)
    {
#if NET8_0_OR_GREATER
        // Stored field by field (ItemCopy says why); constants need no write barrier.
        item.Level = null;
        item.LoggerName = null;
        item.Repository = null;
        item.Message = null;
        item.Text = keep;
        item.Formatted = null;
        item.ThreadName = null;
        item.ExceptionString = null;
        item.Context = null;
        item.MessageObject = null;
        item.ExceptionObject = null;
#else
        item = new CapturedEvent(keep);
#endif
    }

#if NET8_0_OR_GREATER
    /// <summary>Copies <paramref name="source"/> into a slot one field at a time (<see cref="Engine.ItemCopy"/> says why).</summary>
    [MethodImpl(MethodImplOptions.AggressiveInlining)]
    private static void Write(ref CapturedEvent destination, in CapturedEvent source, string? message, MessageText? text)
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

        if (!ReferenceEquals(destination.Text, text))
        {
            destination.Text = text;
        }

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
    private static void Write(ref CapturedEvent destination, in CapturedEvent source, string? message, MessageText? text) =>
        destination = new CapturedEvent(in source, message, text);
#endif
}
