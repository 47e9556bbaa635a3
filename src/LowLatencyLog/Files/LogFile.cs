using System;
using System.IO;
using System.Text;

namespace LowLatencyLog.Files;

/// <summary>Opens log files the way the file appenders need them: unbuffered, positioned at the end, folder created.</summary>
internal static class LogFile
{
    /// <summary>
    /// Opens <paramref name="path"/> for writing: truncated unless <paramref name="append"/>, otherwise positioned at its
    /// end. Missing folders are created. Others may read the file, and may delete or rename it (log rotation tools); another
    /// writer that asks for the file's lock is refused (<see cref="FileLocks.LockExclusive"/>).
    /// </summary>
    /// <remarks>
    /// The stream is unbuffered (buffer size 1): <see cref="Text.EventBufferWriter"/> hands it whole events, and a buffering
    /// stream would cut them at its own chunk boundaries. Not opened in <see cref="FileMode.Append"/>, so that a write
    /// that failed half-way (disk full) can be rewound and overwritten by the retry.
    /// </remarks>
    public static Stream Open(string path, bool append) => Open(path, append, exclusive: true);

    /// <summary>As <see cref="Open(string, bool)"/>; with <paramref name="exclusive"/> false (log4net's <c>NoLock</c>)
    /// other writers may open the file too.</summary>
    public static Stream Open(string path, bool append, bool exclusive)
    {
        CreateFolder(path);
        var share = exclusive ? FileShare.Read | FileShare.Delete : FileShare.ReadWrite | FileShare.Delete;
        var stream = new FileStream(path, FileMode.OpenOrCreate, FileAccess.Write, share, 1);
        try
        {
            // Before anything is truncated or written: a second writer must leave the file as it is.
            if (exclusive && !FileLocks.LockExclusive(stream, path))
            {
                FileLocks.ReportUnlockedOnce();
            }
        }
        catch
        {
            stream.Dispose();
            throw;
        }

        if (append)
        {
            stream.Seek(0, SeekOrigin.End);
        }
        else if (stream.Length > 0)
        {
            // Only a file with content (FileMode.Create truncates always): ext4 takes the truncation of a file to zero
            // for a rewrite and writes the whole file out when it is closed, which slowed each roll's close.
            stream.SetLength(0);
        }

        return stream;
    }

    /// <summary>Creates the folder of <paramref name="path"/> if it is missing.</summary>
    public static void CreateFolder(string path)
    {
        string? folder = Path.GetDirectoryName(path);
        if (!string.IsNullOrEmpty(folder) && !Directory.Exists(folder))
        {
            Directory.CreateDirectory(folder);
        }
    }

    /// <summary>
    /// True if the file exists and holds text whose last line has no line feed: what a process killed mid-write leaves
    /// behind. The next event must then start on a new line. A file that holds nothing but a byte-order mark has no
    /// text; a file that ends in a line feed in <paramref name="encoding"/>, or in a 0x0A byte (a file written in an
    /// ASCII-based encoding, or in UTF-16BE or UTF-32BE), ends its last line.
    /// </summary>
    public static bool EndsMidLine(string path, Encoding encoding)
    {
        try
        {
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1);
            return EndsMidLine(stream, encoding.GetBytes("\n"));
        }
        catch (FileNotFoundException)
        {
            return false;
        }
        catch (DirectoryNotFoundException)
        {
            return false;
        }
    }

    /// <summary>As <see cref="EndsMidLine(string, Encoding)"/>, for an open, readable file; <paramref name="lineFeed"/>
    /// is the line feed in the file's encoding. Moves the stream's position.</summary>
    public static bool EndsMidLine(Stream stream, byte[] lineFeed)
    {
        long length = stream.Length;
        int tailLength = (int)Math.Min(length, Math.Max(lineFeed.Length, 4));
        var tail = new byte[tailLength];
        stream.Seek(-tailLength, SeekOrigin.End);
        int read = 0;
        while (read < tail.Length)
        {
            int n = stream.Read(tail, read, tail.Length - read);
            if (n == 0)
            {
                return false;
            }

            read += n;
        }

        if (length == 0 || (length == tailLength && IsByteOrderMark(tail)) || tail[tail.Length - 1] == 0x0A)
        {
            return false;
        }

        if (tail.Length < lineFeed.Length)
        {
            return true;
        }

        for (int i = 0; i < lineFeed.Length; i++)
        {
            if (tail[tail.Length - lineFeed.Length + i] != lineFeed[i])
            {
                return true;
            }
        }

        return false;
    }

    private static readonly byte[][] ByteOrderMarks =
    {
        new byte[] { 0xEF, 0xBB, 0xBF }, new byte[] { 0xFF, 0xFE }, new byte[] { 0xFE, 0xFF },
        new byte[] { 0xFF, 0xFE, 0x00, 0x00 }, new byte[] { 0x00, 0x00, 0xFE, 0xFF },
    };

    private static bool IsByteOrderMark(byte[] bytes)
    {
        foreach (byte[] mark in ByteOrderMarks)
        {
            if (mark.Length == bytes.Length && System.Linq.Enumerable.SequenceEqual(mark, bytes))
            {
                return true;
            }
        }

        return false;
    }
}
