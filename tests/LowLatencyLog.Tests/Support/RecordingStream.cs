using System;
using System.Collections.Generic;
using System.IO;

namespace LowLatencyLog.Tests.Support;

/// <summary>A memory stream that records each write and flush, and can be made to fail.</summary>
internal sealed class RecordingStream : MemoryStream
{
    public List<int> Writes { get; } = new List<int>();

    public int Flushes { get; private set; }

    /// <summary>When set, every write throws it (a full disk, a deleted file).</summary>
    public Exception? Failure { get; set; }

    public override void Write(byte[] buffer, int offset, int count)
    {
        if (Failure != null)
        {
            throw Failure;
        }

        Writes.Add(count);
        base.Write(buffer, offset, count);
    }

    public override void Flush()
    {
        Flushes++;
        base.Flush();
    }
}
