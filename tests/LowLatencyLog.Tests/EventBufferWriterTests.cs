using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using LowLatencyLog.IO;
using LowLatencyLog.Tests.Support;
using NUnit.Framework;

namespace LowLatencyLog.Tests;

public sealed class EventBufferWriterTests
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
    public void AnEventLargerThanTheBuffer_GrowsItAndIsWrittenWhole()
    {
        var writer = Utf8Writer(64, out RecordingStream stream);
        WriteEvent(writer, "small\n");
        string big = string.Concat(Enumerable.Range(0, 300).Select(i => $"line {i} of a large exception\n"));
        WriteEvent(writer, big);
        writer.Flush();

        Assert.That(writer.Capacity, Is.GreaterThanOrEqualTo(Encoding.UTF8.GetByteCount(big)));
        Assert.That(stream.Writes, Is.EqualTo(new[] { 6, Encoding.UTF8.GetByteCount(big) }));
        Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo("small\n" + big));
    }

    [Test]
    public void AFailingStream_LosesNothing_AndTheBytesGoOutOnceItWorksAgain()
    {
        var stream = new RecordingStream { Failure = new IOException("disk full") };
        var writer = new EventBufferWriter(new UTF8Encoding(false), 1024) { Stream = stream };
        WriteEvent(writer, "first\n");
        WriteEvent(writer, "second\n");
        writer.Write("third, half-way");

        Assert.That(() => writer.Flush(), Throws.InstanceOf<IOException>());
        Assert.That(writer.CompleteLength, Is.EqualTo(13), "the two complete events are still buffered");

        stream.Failure = null;
        WriteEvent(writer, "\n");
        writer.Flush();
        Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo("first\nsecond\nthird, half-way\n"));
        Assert.That(stream.Writes.Count, Is.EqualTo(1));
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

    [Test]
    public void WithoutAStream_BytesStayBuffered()
    {
        var writer = new EventBufferWriter(new UTF8Encoding(false), 16);
        for (int i = 0; i < 100; i++)
        {
            writer.Write("buffered event\n");
            writer.EndEvent();
        }

        Assert.That(writer.WriteCompleteEvents(), Is.False);
        Assert.That(writer.CompleteLength, Is.EqualTo(1500));
        var stream = new RecordingStream();
        writer.Stream = stream;
        writer.Flush();
        Assert.That(stream.Length, Is.EqualTo(1500));
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

    [Test]
    public void Flush_ReachesTheStreamEvenWhenItsLastWriteHappenedMidEvent()
    {
        var inner = new MemoryStream();
        var buffered = new BufferedStream(inner, 4096);
        var writer = new EventBufferWriter(new UTF8Encoding(false), 64) { Stream = buffered };
        WriteEvent(writer, "event-A\n");
        writer.Write(new string('b', 200)); // making room hands event A to the stream
        writer.AbandonEvent();              // then the layout fails
        writer.Flush();
        Assert.That(inner.ToArray(), Is.EqualTo(Encoding.UTF8.GetBytes("event-A\n")));
    }

    [Test]
    public void ASeekableStreamThatFailsHalfWay_GetsNoDuplicateBytesOnTheRetry()
    {
        var stream = new HalfWriteThenFailStream();
        var writer = new EventBufferWriter(new UTF8Encoding(false), 64) { Stream = stream };
        WriteEvent(writer, "event-1\n");
        Assert.That(() => writer.Flush(), Throws.InstanceOf<IOException>());
        WriteEvent(writer, "event-2\n");
        writer.Flush();
        Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo("event-1\nevent-2\n"));
    }

    /// <summary>The first write puts half its bytes in the stream and then fails, like a disk that filled up.</summary>
    private sealed class HalfWriteThenFailStream : MemoryStream
    {
        private bool _failed;

        public override void Write(byte[] buffer, int offset, int count)
        {
            if (!_failed)
            {
                _failed = true;
                base.Write(buffer, offset, count / 2);
                throw new IOException("disk full");
            }

            base.Write(buffer, offset, count);
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
