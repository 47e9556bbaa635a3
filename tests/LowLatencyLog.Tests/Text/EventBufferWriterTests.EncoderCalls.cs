using System;
using System.Text;
using LowLatencyLog.Tests.Support;
using LowLatencyLog.Text;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Text;

// How often the writer calls the encoder.
public sealed partial class EventBufferWriterTests
{
    [Test]
    public void TenWritesPerEvent_AreEncodedInFarFewerEncoderCallsThanWrites()
    {
        var encoding = new CountingEncoding();
        var stream = new RecordingStream();
        var writer = new EventBufferWriter(encoding, 1 << 16) { Stream = stream };
        var expected = new StringBuilder();
        for (int i = 0; i < 200; i++)
        {
            foreach (string part in new[] { "2026-11-22 10:00:00,123", " [", "worker", "] ", "INFO ", " ", "App.Orders", " - ", "order " + i, "\n" })
            {
                writer.Write(part);
                expected.Append(part);
            }

            writer.EndEvent();
        }

        writer.Flush();
        Assert.That(Encoding.UTF8.GetString(stream.ToArray()), Is.EqualTo(expected.ToString()));
        Assert.That(encoding.EncoderCalls, Is.LessThan(200), "at most one encoder call per event, not one per write");
    }

    /// <summary>UTF-8 whose encoders count how often they are asked to encode.</summary>
    private sealed class CountingEncoding : UTF8Encoding
    {
        public CountingEncoding()
            : base(false)
        {
        }

        public int EncoderCalls { get; set; }

        public override Encoder GetEncoder() => new CountingEncoder(this, base.GetEncoder());
    }

    private sealed class CountingEncoder : Encoder
    {
        private readonly CountingEncoding _owner;
        private readonly Encoder _inner;

        public CountingEncoder(CountingEncoding owner, Encoder inner)
        {
            _owner = owner;
            _inner = inner;
        }

        public override int GetByteCount(char[] chars, int index, int count, bool flush) => _inner.GetByteCount(chars, index, count, flush);

        public override int GetBytes(char[] chars, int charIndex, int charCount, byte[] bytes, int byteIndex, bool flush)
        {
            _owner.EncoderCalls++;
            return _inner.GetBytes(chars, charIndex, charCount, bytes, byteIndex, flush);
        }

        public override unsafe int GetBytes(char* chars, int charCount, byte* bytes, int byteCount, bool flush)
        {
            _owner.EncoderCalls++;
            return _inner.GetBytes(chars, charCount, bytes, byteCount, flush);
        }

        public override int GetBytes(ReadOnlySpan<char> chars, Span<byte> bytes, bool flush)
        {
            _owner.EncoderCalls++;
            return _inner.GetBytes(chars, bytes, flush);
        }

        public override unsafe void Convert(char* chars, int charCount, byte* bytes, int byteCount, bool flush, out int charsUsed, out int bytesUsed, out bool completed)
        {
            _owner.EncoderCalls++;
            _inner.Convert(chars, charCount, bytes, byteCount, flush, out charsUsed, out bytesUsed, out completed);
        }

        public override void Convert(char[] chars, int charIndex, int charCount, byte[] bytes, int byteIndex, int byteCount, bool flush, out int charsUsed, out int bytesUsed, out bool completed)
        {
            _owner.EncoderCalls++;
            _inner.Convert(chars, charIndex, charCount, bytes, byteIndex, byteCount, flush, out charsUsed, out bytesUsed, out completed);
        }

        public override void Convert(ReadOnlySpan<char> chars, Span<byte> bytes, bool flush, out int charsUsed, out int bytesUsed, out bool completed)
        {
            _owner.EncoderCalls++;
            _inner.Convert(chars, bytes, flush, out charsUsed, out bytesUsed, out completed);
        }

        public override void Reset() => _inner.Reset();
    }
}
