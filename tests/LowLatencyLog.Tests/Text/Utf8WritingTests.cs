using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using LowLatencyLog.Tests.Support;
using LowLatencyLog.Text;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Text;

/// <summary>
/// UTF-8 encoded as it is written (no char buffer): the same bytes as the char path and as a <see cref="StreamWriter"/>,
/// whatever the text, the lengths, the surrogates and the buffer's room.
/// </summary>
public sealed class Utf8WritingTests
{
    [Test]
    public void TheRuntimesUtf8WithItsStandardReplacement_IsEncodedAsItIsWritten()
    {
        Assert.That(new EventBufferWriter(new UTF8Encoding(false), 64).EncodesAsItWrites, Is.EqualTo(EventBufferWriter.DirectUtf8Supported));
        Assert.That(new EventBufferWriter(Encoding.UTF8, 64).EncodesAsItWrites, Is.EqualTo(EventBufferWriter.DirectUtf8Supported));
    }

    [Test]
    public void AnyOtherEncoding_GoesThroughTheCharBuffer()
    {
        var throwing = new UTF8Encoding(false, throwOnInvalidBytes: true);
        var otherReplacement = (Encoding)new UTF8Encoding(false).Clone();
        otherReplacement.EncoderFallback = new EncoderReplacementFallback("?");
        foreach (Encoding encoding in new[] { throwing, otherReplacement, new CharBufferedUtf8(), Encoding.Unicode, Encoding.Latin1, Encoding.ASCII })
        {
            Assert.That(new EventBufferWriter(encoding, 64).EncodesAsItWrites, Is.False, encoding.GetType().Name);
        }
    }

    [Test]
    public void AnExceptionFallback_StillThrowsOnALoneSurrogate_AsAStreamWriterDoes()
    {
        var writer = new EventBufferWriter(new UTF8Encoding(false, throwOnInvalidBytes: true), 64) { Stream = new RecordingStream() };
        writer.Write("a\uDE00b");
        writer.EndEvent();
        Assert.That(() => writer.Flush(), Throws.InstanceOf<EncoderFallbackException>());
    }

    /// <summary>Every length up to past two 512-bit blocks, ASCII, then with one non-ASCII char at each position.</summary>
    [Test]
    public void EveryLength_AndANonAsciiCharAtEveryPosition_GivesTheEncodingsBytes()
    {
        string ascii = string.Concat(Enumerable.Range(0, 140).Select(i => (char)(' ' + (i % 95))));
        foreach (char other in new[] { '\u0080', 'é', '€', '\uFFFF' })
        {
            for (int length = 0; length <= ascii.Length; length++)
            {
                var texts = new List<string> { ascii.Substring(0, length) };
                for (int at = 0; at < length; at++)
                {
                    texts.Add(ascii.Substring(0, at) + other + ascii.Substring(at + 1, length - at - 1));
                }

                foreach (string text in texts)
                {
                    var writer = new EventBufferWriter(new UTF8Encoding(false), 512) { Stream = new RecordingStream() };
                    writer.Write(text);
                    writer.EndEvent();
                    writer.Flush();
                    Assert.That(((RecordingStream)writer.Stream!).ToArray(), Is.EqualTo(Encoding.UTF8.GetBytes(text)), $"length {length}: {text}");
                }
            }
        }
    }

    [Test]
    public void AHighSurrogateAtTheEndOfAnEvent_PairsWithALowOneStartingTheNext_AsTheEncoderPairsThem() =>
        AssertBothWaysWrite("a😀b\uFFFDc", writer =>
        {
            writer.Write("a\uD83D");
            writer.EndEvent();
            writer.Write("\uDE00b\uD83D");
            writer.EndEvent();
            writer.Write("c");
            writer.EndEvent();
        });

    /// <summary>An empty write between the halves of a pair (an empty thread name between a message and a logger name
    /// that end and start on them) writes nothing: the pair stays one character, as the encoder keeps it.</summary>
    [Test]
    public void AnEmptyWriteBetweenTheHalvesOfAPair_LeavesThePairWhole() =>
        AssertBothWaysWrite("a😀b\n", writer =>
        {
            writer.Write("a\uD83D");
            writer.Write("");
            writer.Write(ReadOnlySpan<char>.Empty);
            writer.Write(Array.Empty<char>(), 0, 0);
            writer.Append(Array.Empty<char>(), 0);
            writer.Reserve(0, out _);
            writer.Advance(0);
            writer.Write("\uDE00b\n");
            writer.EndEvent();
        });

    [Test]
    public void LiteralsWrittenAsBytes_AreTheBytesOfTheirText_AndKeepAHeldSurrogatesReplacement()
    {
        byte[]? newline = EventBufferWriter.PreEncode("\n");
        byte[]? arrow = EventBufferWriter.PreEncode(" → ");
        var writer = new EventBufferWriter(new UTF8Encoding(false), 64) { Stream = new RecordingStream() };
        writer.WriteLiteral(" → ", arrow);
        writer.Write("x\uD83D");
        writer.WriteLiteral("\n", newline); // the held half is replaced before the literal, as the encoder does
        writer.EndEvent();
        Assert.That(EventBufferWriter.TryPackLiteral("\n", out ulong packed, out int length), Is.EqualTo(EventBufferWriter.DirectUtf8Supported));
        Assert.That(writer.TryWriteAscii("ascii message", packed, length), Is.EqualTo(writer.EncodesAsItWrites));
        if (!writer.EncodesAsItWrites)
        {
            writer.Write("ascii message\n");
        }

        writer.EndEvent();
        Assert.That(writer.TryWriteAscii("not ascii: é", packed, length), Is.False, "nothing written");
        writer.Flush();
        Assert.That(
            Encoding.UTF8.GetString(((RecordingStream)writer.Stream!).ToArray()),
            Is.EqualTo(" → x\uFFFD\nascii message\n"));
    }

    [Test]
    public void PackedLiterals_AreTheirBytes_UpToEight_AndOnlyTheirLengthIsKept()
    {
        if (!EventBufferWriter.DirectUtf8Supported)
        {
            Assert.That(EventBufferWriter.TryPackLiteral("\n", out _, out _), Is.False);
            return;
        }

        var stream = new RecordingStream();
        var writer = new EventBufferWriter(new UTF8Encoding(false), 64) { Stream = stream };
        string expected = "";
        foreach (string literal in new[] { "", "\n", "\r\n", " →\n", "12345678" })
        {
            Assert.That(EventBufferWriter.TryPackLiteral(literal, out ulong packed, out int length), Is.True, literal);
            Assert.That(length, Is.EqualTo(Encoding.UTF8.GetByteCount(literal)));
            Assert.That(writer.TryWriteAscii("message", packed, length), Is.True, literal);
            writer.EndEvent();
            expected += "message" + literal;
        }

        Assert.That(EventBufferWriter.TryPackLiteral("123456789", out _, out _), Is.False, "longer than 8 bytes");
        Assert.That(EventBufferWriter.TryPackLiteral("\uDE00\n", out _, out _), Is.False, "pairs with the text before it");
        Assert.That(EventBufferWriter.TryPackLiteral("\n\uD83D", out _, out _), Is.False, "pairs with the text after it");

        // The 8-byte store needs room past the text: 55 + 7 bytes fill 62 of 64, and the write goes the general way.
        writer.Flush();
        EventBufferWriter.TryPackLiteral("\n", out ulong newline, out _);
        writer.Write(new string('a', 7));
        Assert.That(writer.TryWriteAscii(new string('b', 55), newline, 1), Is.False, "no room for the 8-byte store");
        writer.Write(new string('b', 55) + "\n");
        writer.EndEvent();
        writer.Flush();
        expected += new string('a', 7) + new string('b', 55) + "\n";
        Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo(expected));
    }

    [Test]
    public void PreEncode_LeavesOutLiteralsThatTheEncoderWouldJoinToTheirNeighbours()
    {
        Assert.That(EventBufferWriter.PreEncode(null), Is.Null);
        Assert.That(EventBufferWriter.PreEncode(""), Is.Null);
        Assert.That(EventBufferWriter.PreEncode("\uDE00 after a high half"), Is.Null);
        Assert.That(EventBufferWriter.PreEncode("before a low half \uD83D"), Is.Null);
        if (EventBufferWriter.DirectUtf8Supported)
        {
            Assert.That(EventBufferWriter.PreEncode(" [é] "), Is.EqualTo(Encoding.UTF8.GetBytes(" [é] ")));
            Assert.That(EventBufferWriter.PreEncode("a\uDE00b"), Is.EqualTo(Encoding.UTF8.GetBytes("a\uFFFDb")));
        }
    }

    [Test]
    public void AnEventOfManyMegabytes_IsWrittenWhole_AndAnEventBeyondTheCapIsDroppedWhole()
    {
        var stream = new RecordingStream();
        var writer = new EventBufferWriter(new UTF8Encoding(false), 256, maxCapacity: 3 * 1024 * 1024) { Stream = stream };
        string big = string.Concat(Enumerable.Repeat("line é 😀 of a large exception\n", 60_000)); // about 2 MB
        writer.Write(big);
        writer.EndEvent();
        writer.Write(big);
        writer.Write(big);
        writer.EndEvent();
        writer.Write("after\n");
        writer.EndEvent();
        writer.Flush();
        Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo(big + "after\n"));
        Assert.That(writer.DroppedEvents, Is.EqualTo(1));
        Assert.That(stream.Writes, Is.EqualTo(new[] { Encoding.UTF8.GetByteCount(big), 6 }), "each write ends where an event ended");
    }

    /// <summary>The writes, flushed, give <paramref name="expected"/>'s UTF-8 both as encoded and through the char buffer.</summary>
    private static void AssertBothWaysWrite(string expected, Action<EventBufferWriter> write)
    {
        foreach (Encoding encoding in new Encoding[] { new UTF8Encoding(false), new CharBufferedUtf8() })
        {
            var writer = new EventBufferWriter(encoding, 64) { Stream = new RecordingStream() };
            write(writer);
            writer.Flush();
            Assert.That(((RecordingStream)writer.Stream!).ToArray(), Is.EqualTo(Encoding.UTF8.GetBytes(expected)), writer.EncodesAsItWrites ? "direct" : "chars");
        }
    }
}
