using System.IO;
using System.Linq;
using System.Text;
using LowLatencyLog.Tests.Support;
using LowLatencyLog.Text;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Text;

// Buffer growth and its cap, writing without a stream, and streams that fail.
public sealed partial class EventBufferWriterTests
{
    [Test]
    public void AnEventLargerThanTheBuffer_GrowsItAndIsWrittenWhole()
    {
        var writer = Utf8Writer(64, out RecordingStream stream);
        WriteEvent(writer, "small\n");
        string big = string.Concat(Enumerable.Range(0, 300).Select(i => $"line {i} of a large exception\n"));
        WriteEvent(writer, big);
        writer.Flush();

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

    [Test]
    public void WithoutAStream_GrowthStopsAtTheCap_AndWholeEventsBeyondItAreDroppedAndCounted()
    {
        var writer = new EventBufferWriter(new UTF8Encoding(false), 64, maxCapacity: 1024);
        for (int i = 0; i < 1000; i++)
        {
            writer.Write("event ");
            writer.Write(i);
            writer.Write('\n');
            writer.EndEvent();
        }

        writer.WriteCompleteEvents();
        Assert.That(writer.Capacity, Is.LessThanOrEqualTo(1024));
        Assert.That(writer.DroppedEvents, Is.GreaterThan(800));

        var stream = new RecordingStream();
        writer.Stream = stream;
        WriteEvent(writer, "after\n");
        writer.Flush();
        string[] lines = Encoding.UTF8.GetString(stream.ToArray()).Split('\n');
        long kept = lines.Length - 2;
        Assert.That(kept + writer.DroppedEvents, Is.EqualTo(1000), "each event either kept or counted");
        for (int i = 0; i < kept; i++)
        {
            Assert.That(lines[i], Is.EqualTo("event " + i), "the events kept are the first ones, whole");
        }

        Assert.That(lines[^2], Is.EqualTo("after"), "writing resumes once a stream is attached");
    }

    [Test]
    public void WhileTheStreamFails_GrowthStopsAtTheCap_AndNoWriteThrows()
    {
        var stream = new RecordingStream { Failure = new IOException("disk full") };
        var writer = new EventBufferWriter(new UTF8Encoding(false), 64, maxCapacity: 512) { Stream = stream };
        for (int i = 0; i < 500; i++)
        {
            WriteEvent(writer, $"event {i}\n");
        }

        Assert.That(writer.Capacity, Is.LessThanOrEqualTo(512));
        Assert.That(writer.DroppedEvents, Is.GreaterThan(0));
        Assert.That(writer.TakeWriteFailure(), Is.InstanceOf<IOException>(), "the failure is kept for the owner to report");
        Assert.That(writer.TakeWriteFailure(), Is.Null, "and reported once");

        stream.Failure = null;
        writer.Flush();
        string[] lines = Encoding.UTF8.GetString(stream.ToArray()).Split('\n');
        Assert.That(lines.Length - 1 + writer.DroppedEvents, Is.EqualTo(500));
        Assert.That(lines[0], Is.EqualTo("event 0"));
    }

    [Test]
    public void AnEventLargerThanTheCap_IsDroppedWhole_AndTheNextOneIsKept()
    {
        var writer = new EventBufferWriter(new UTF8Encoding(false), 64, maxCapacity: 4096) { Stream = new RecordingStream() };
        var stream = (RecordingStream)writer.Stream!;
        WriteEvent(writer, "before\n");
        for (int i = 0; i < 100; i++)
        {
            writer.Write(new string('g', 100));
        }

        writer.EndEvent();
        WriteEvent(writer, "after\n");
        writer.Flush();
        Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo("before\nafter\n"));
        Assert.That(writer.DroppedEvents, Is.EqualTo(1));
        Assert.That(writer.Capacity, Is.EqualTo(64));
    }

    [Test]
    public void AfterAGiantEvent_TheBufferShrinksBackToItsConfiguredSize()
    {
        var writer = Utf8Writer(256, out RecordingStream stream);
        WriteEvent(writer, new string('G', 100_000) + "\n");
        WriteEvent(writer, "small\n");
        writer.Flush();
        Assert.That(writer.Capacity, Is.EqualTo(256));
        Assert.That(stream.Length, Is.EqualTo(100_007));
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
}
