using System;
using System.IO;
using System.Text;

namespace LowLatencyLog.IO;

/// <summary>Opens log files the way the file appenders need them: unbuffered, positioned at the end, folder created.</summary>
internal static class LogFile
{
    /// <summary>
    /// Opens <paramref name="path"/> for writing: truncated unless <paramref name="append"/>, otherwise positioned at its
    /// end. Missing folders are created. Others may read the file, and may delete or rename it (log rotation tools).
    /// </summary>
    /// <remarks>
    /// The stream is unbuffered (buffer size 1): <see cref="EventBufferWriter"/> hands it whole events, and a buffering
    /// stream would cut them at its own chunk boundaries. Not opened in <see cref="FileMode.Append"/>, so that a write
    /// that failed half-way (disk full) can be rewound and overwritten by the retry.
    /// </remarks>
    public static Stream Open(string path, bool append)
    {
        string? folder = Path.GetDirectoryName(path);
        if (!string.IsNullOrEmpty(folder) && !Directory.Exists(folder))
        {
            Directory.CreateDirectory(folder);
        }

        var stream = new FileStream(
            path, append ? FileMode.OpenOrCreate : FileMode.Create, FileAccess.Write, FileShare.Read | FileShare.Delete, 1);
        if (append)
        {
            stream.Seek(0, SeekOrigin.End);
        }

        return stream;
    }

    /// <summary>
    /// True if the file exists, is not empty, and its last bytes are not a line feed in <paramref name="encoding"/>:
    /// what a process killed mid-write leaves behind. The next event must then start on a new line.
    /// </summary>
    public static bool EndsMidLine(string path, Encoding encoding)
    {
        byte[] lineFeed = encoding.GetBytes("\n");
        try
        {
            using var stream = new FileStream(path, FileMode.Open, FileAccess.Read, FileShare.ReadWrite | FileShare.Delete, 1);
            long length = stream.Length;
            if (length == 0)
            {
                return false;
            }

            if (length < lineFeed.Length)
            {
                return true;
            }

            var tail = new byte[lineFeed.Length];
            stream.Seek(-lineFeed.Length, SeekOrigin.End);
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

            for (int i = 0; i < tail.Length; i++)
            {
                if (tail[i] != lineFeed[i])
                {
                    return true;
                }
            }

            return false;
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
}
