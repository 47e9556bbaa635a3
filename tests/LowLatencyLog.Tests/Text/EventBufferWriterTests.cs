using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Text;
using LowLatencyLog.Tests.Support;
using LowLatencyLog.Text;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Text;

public sealed partial class EventBufferWriterTests
{
    private static readonly string[] Texts =
    {
        "2026-11-22 10:00:00,123 [main] INFO  App - started\n",
        "accents: àéîõü ß Ø ñ\r\n",
        "CJK: 日本語のログ 中文日志 한국어\n",
        "emoji: 😀🚀 𝄞 (surrogate pairs)\n",
        "System.InvalidOperationException: boom\n   at App.Main() in C:\\src\\Program.cs:line 42\n   --- inner ---\n",
        new string('x', 5000) + "\n",
        "",
        "tab\tand \"quotes\" and <xml/> & €\n",
    };

    public static IEnumerable<TestCaseData> Encodings()
    {
        yield return new TestCaseData(new UTF8Encoding(false)).SetArgDisplayNames("UTF-8");
        yield return new TestCaseData(new UTF8Encoding(true)).SetArgDisplayNames("UTF-8 BOM");
        yield return new TestCaseData(new UnicodeEncoding(false, true)).SetArgDisplayNames("UTF-16LE");
        yield return new TestCaseData(new UnicodeEncoding(true, true)).SetArgDisplayNames("UTF-16BE");
        yield return new TestCaseData(new UTF32Encoding(false, true)).SetArgDisplayNames("UTF-32");
        yield return new TestCaseData(Encoding.Latin1).SetArgDisplayNames("Latin-1");
        yield return new TestCaseData(Encoding.ASCII).SetArgDisplayNames("ASCII");
    }

    [TestCaseSource(nameof(Encodings))]
    public void Bytes_AreThoseAStreamWriterWritesForTheSameText(Encoding encoding)
    {
        foreach (int bufferSize in new[] { 16, 256, 1 << 16 })
        {
            var stream = new RecordingStream();
            var writer = new EventBufferWriter(encoding, bufferSize) { Stream = stream };
            var reference = new MemoryStream();
            using (var streamWriter = new StreamWriter(reference, encoding, 1024, leaveOpen: true))
            {
                foreach (string text in Texts)
                {
                    WriteThroughEveryOverload(writer, text);
                    writer.EndEvent();
                    streamWriter.Write(text);
                }
            }

            writer.Flush();
            byte[] expected = reference.ToArray().Skip(encoding.GetPreamble().Length).ToArray();
            Assert.That(stream.ToArray(), Is.EqualTo(expected), $"buffer {bufferSize}");
        }
    }

    [Test]
    public void SurrogatePairSplitAcrossTwoWrites_IsEncodedAsOneCharacter()
    {
        var writer = Utf8Writer(64, out RecordingStream stream);
        string emoji = "😀";
        writer.Write(emoji[0]);
        writer.Write(emoji[1]);
        writer.EndEvent();
        writer.Flush();
        Assert.That(stream.ToArray(), Is.EqualTo(Encoding.UTF8.GetBytes(emoji)));
    }

    [Test]
    public void EveryStreamWrite_EndsWhereAnEventEnded()
    {
        var random = new Random(1234);
        var writer = Utf8Writer(512, out RecordingStream stream);
        var eventEnds = new HashSet<long> { 0 };
        long offset = 0;
        for (int i = 0; i < 2000; i++)
        {
            string text = $"event {i} " + new string('é', random.Next(0, 400)) + "\n";
            writer.Write(text);
            writer.EndEvent();
            offset += Encoding.UTF8.GetByteCount(text);
            eventEnds.Add(offset);
        }

        writer.Flush();
        Assert.That(stream.Writes.Count, Is.GreaterThan(100), "a small buffer forces many writes");
        long position = 0;
        foreach (int count in stream.Writes)
        {
            position += count;
            Assert.That(eventEnds, Does.Contain(position), "a write ended inside an event");
        }

        Assert.That(position, Is.EqualTo(offset));
    }

    [Test]
    public void ABatchThatFitsTheBuffer_IsOneWriteAndOneFlush()
    {
        var writer = Utf8Writer(1 << 16, out RecordingStream stream);
        for (int i = 0; i < 500; i++)
        {
            writer.Write("2026-11-22 10:00:00,123 [worker] INFO  Batch - event ");
            writer.Write(i);
            writer.Write('\n');
            writer.EndEvent();
        }

        Assert.That(stream.Writes, Is.Empty, "nothing written before the end of the batch");
        writer.Flush();
        Assert.That(stream.Writes.Count, Is.EqualTo(1));
        Assert.That(stream.Flushes, Is.EqualTo(1));
        writer.Flush();
        Assert.That(stream.Flushes, Is.EqualTo(1), "nothing new: no second flush");
    }

    [Test]
    public void AbandonEvent_DropsOnlyTheEventBeingWritten()
    {
        var writer = Utf8Writer(1024, out RecordingStream stream);
        WriteEvent(writer, "kept\n");
        writer.Write("a layout that threw half-way");
        writer.AbandonEvent();
        WriteEvent(writer, "next\n");
        writer.Flush();
        Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo("kept\nnext\n"));
    }

    [TestCase(0)]
    [TestCase(1)]
    [TestCase(4090)]
    [TestCase(4095)]
    public void Reserve_WritingInPlace_AtEveryFillOfTheCharBuffer_KeepsTheText(int before)
    {
        var writer = Utf8Writer(64 * 1024, out RecordingStream stream);
        string head = new string('h', before);
        writer.Write(head);
        char[] chars = writer.Reserve(10, out int index);
        "0123456789".CopyTo(0, chars, index, 10);
        writer.Advance(10);
        writer.Write("é\n");
        writer.EndEvent();
        WriteEvent(writer, "next\n");
        writer.Flush();
        Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo(head + "0123456789é\nnext\n"));
    }

    [Test]
    public void LoneHighSurrogateBeforeAFlush_IsWrittenAsAStreamWriterWritesIt()
    {
        var encoding = new UTF8Encoding(false);
        var stream = new RecordingStream();
        var writer = new EventBufferWriter(encoding, 64) { Stream = stream };
        WriteEvent(writer, "a\uD83D");
        writer.Flush();

        var reference = new MemoryStream();
        using (var streamWriter = new StreamWriter(reference, encoding, 1024, leaveOpen: true))
        {
            streamWriter.Write("a\uD83D");
        }

        Assert.That(stream.ToArray(), Is.EqualTo(reference.ToArray()));
    }

    [Test]
    public void WriteCharArray_RejectsARangeOutsideTheArray()
    {
        var writer = new EventBufferWriter(new UTF8Encoding(false), 1024) { Stream = new RecordingStream() };
        var chars = new[] { 'x', 'y' };
        Assert.That(() => writer.Write(chars, 0, 2000), Throws.InstanceOf<ArgumentException>());
        Assert.That(() => writer.Write(chars, 3, 0), Throws.InstanceOf<ArgumentException>());
        Assert.That(() => writer.Write(chars, -1, 1), Throws.InstanceOf<ArgumentException>());
        Assert.That(() => writer.Write(null!, 0, 1), Throws.InstanceOf<ArgumentNullException>());
        Assert.That(writer.Length, Is.Zero);
    }

    [TestCase("de-DE")]
    [TestCase("sv-SE")]
    [TestCase("ar-SA")]
    public void Numbers_AreFormattedWithTheCurrentCulture_AsAStreamWriterFormatsThem(string culture)
    {
        CultureInfo saved = CultureInfo.CurrentCulture;
        CultureInfo.CurrentCulture = new CultureInfo(culture);
        try
        {
            var encoding = new UTF8Encoding(false);
            var stream = new RecordingStream();
            var writer = new EventBufferWriter(encoding, 256) { Stream = stream };
            var reference = new MemoryStream();
            using (var streamWriter = new StreamWriter(reference, encoding, 1024, leaveOpen: true))
            {
                foreach (TextWriter target in new TextWriter[] { writer, streamWriter })
                {
                    target.Write(1234.5);
                    target.Write(' ');
                    target.Write(0.25f);
                    target.Write(' ');
                    target.Write(1234567.891m);
                    target.Write(" {0:N2} {1}", 1234.5, -7);
                    target.Write(-42);
                    target.Write(int.MinValue);
                    target.Write(-9876543210L);
                    target.Write(long.MinValue);
                    target.WriteLine(3.5);
                }
            }

            writer.EndEvent();
            writer.Flush();
            if (culture == "de-DE")
            {
                Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Does.StartWith("1234,5 0,25 1234567,891 1.234,50 -7-42"));
            }

            Assert.That(stream.ToArray(), Is.EqualTo(reference.ToArray()));
        }
        finally
        {
            CultureInfo.CurrentCulture = saved;
        }
    }

    public static IEnumerable<TestCaseData> RandomWriteCases()
    {
        foreach (int seed in new[] { 1, 2, 3 })
        {
            yield return new TestCaseData(new UTF8Encoding(false), seed).SetArgDisplayNames("UTF-8", $"seed {seed}");
            yield return new TestCaseData(new CharBufferedUtf8(), seed).SetArgDisplayNames("UTF-8 through chars", $"seed {seed}");
        }

        yield return new TestCaseData(new UnicodeEncoding(false, false), 4).SetArgDisplayNames("UTF-16", "seed 4");
        yield return new TestCaseData(Encoding.Latin1, 5).SetArgDisplayNames("Latin-1", "seed 5");
    }

    /// <summary>
    /// Random writes through every overload, pieces with pairs, lone halves and pairs split across writes, events ended,
    /// flushed between events now and then; buffer sizes from one that cannot hold a line to one that holds them all.
    /// </summary>
    [TestCaseSource(nameof(RandomWriteCases))]
    public void RandomTextSplitAcrossRandomWrites_GivesTheBytesAStreamWriterWrites(Encoding encoding, int seed)
    {
        var random = new Random(seed);
        string[] pieces =
        {
            "a", "é", "日本", "😀", "\uD83D", "\uDE00", "𝄞x", "\n", "\r\n", "INFO ", " [", "] ", new string('z', 700),
            "order 7919 accepted for customer 12 in region eu-west", "2026-11-26 10:00:00,123", "€\uD83D", "\uDE00€",
            "😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀😀", new string('ü', 40), "",
        };
        foreach (int bufferSize in new[] { 16, 64, 300, 1 << 16 })
        {
            var stream = new RecordingStream();
            var writer = new EventBufferWriter(encoding, bufferSize) { Stream = stream };
            var reference = new MemoryStream();
            using (var streamWriter = new StreamWriter(reference, encoding, 1024, leaveOpen: true))
            {
                for (int e = 0; e < 400; e++)
                {
                    int writes = random.Next(1, 10);
                    for (int w = 0; w < writes; w++)
                    {
                        string text = pieces[random.Next(pieces.Length)];
                        WriteThrough(writer, text, random.Next(6));
                        streamWriter.Write(text);
                    }

                    writer.EndEvent();
                    if (random.Next(8) == 0)
                    {
                        writer.Flush();
                        streamWriter.Flush();
                    }
                }
            }

            writer.Flush();
            byte[] expected = reference.ToArray().Skip(encoding.GetPreamble().Length).ToArray();
            Assert.That(stream.ToArray(), Is.EqualTo(expected), $"{encoding.WebName}, buffer {bufferSize}");
            Assert.That(writer.EncodedBytes, Is.EqualTo(expected.Length), "the bytes a roll counts");
        }
    }

    [Test]
    public void WriteSpan_AppendsTheChars()
    {
        var writer = Utf8Writer(64, out RecordingStream stream);
        writer.Write("ab".AsSpan());
        writer.Write(new string('é', 100).AsSpan());
        writer.Write(ReadOnlySpan<char>.Empty);
        writer.EndEvent();
        writer.Flush();
        Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo("ab" + new string('é', 100)));
    }

    private static void WriteThrough(EventBufferWriter writer, string text, int how)
    {
        switch (how)
        {
            case 0:
                foreach (char c in text)
                {
                    writer.Write(c);
                }

                break;
            case 1:
                writer.Write(text.ToCharArray(), 0, text.Length);
                break;
            case 2:
                writer.Write(text.AsSpan());
                break;
            case 3:
                if (text.Length <= EventBufferWriter.MaxReserve)
                {
                    char[] buffer = writer.Reserve(text.Length, out int index);
                    text.CopyTo(0, buffer, index, text.Length);
                    writer.Advance(text.Length);
                }
                else
                {
                    writer.Write(text);
                }

                break;
            case 4:
                writer.Append(text.ToCharArray(), text.Length);
                break;
            default:
                writer.Write(text);
                break;
        }
    }

    private static EventBufferWriter Utf8Writer(int bufferSize, out RecordingStream stream)
    {
        stream = new RecordingStream();
        return new EventBufferWriter(new UTF8Encoding(false), bufferSize) { Stream = stream };
    }

    private static void WriteEvent(EventBufferWriter writer, string text)
    {
        writer.Write(text);
        writer.EndEvent();
    }

    private static void WriteThroughEveryOverload(TextWriter writer, string text)
    {
        // Thirds: as a string, char by char, and as a char-array slice.
        int a = text.Length / 3, b = 2 * text.Length / 3;
        writer.Write(text.Substring(0, a));
        foreach (char c in text.Substring(a, b - a))
        {
            writer.Write(c);
        }

        char[] rest = ("##" + text.Substring(b)).ToCharArray();
        writer.Write(rest, 2, rest.Length - 2);
    }
}
