using System;
using System.IO;
using System.Threading;

namespace LowLatencyLog.IO;

/// <summary>
/// A log file shared with other processes (<see cref="FileSharing.Shared"/>): each write takes the file's shared lock,
/// opens the file, appends at its end, and closes it again, so several processes append whole batches of whole events
/// to one file, and a file renamed by another process's roll is followed by the next write.
/// </summary>
/// <remarks>
/// Open only during a write, as log4net's <c>MinimalLock</c>: other programs can read, rename or delete the file in
/// between. A write that fails midway is cut off again before the lock is released, so the file never keeps a torn
/// event for other writers to append after.
/// </remarks>
internal sealed class SharedFileStream : Stream
{
    private readonly string _path;
    private readonly Mutex _lock;
    private long _length;

    /// <summary>Creates the file if it is missing (empties it unless <paramref name="append"/>).</summary>
    public SharedFileStream(string path, bool append, Mutex sharedLock)
    {
        _path = path;
        _lock = sharedLock;
        FileLocks.Enter(_lock);
        try
        {
            using FileStream file = OpenFile();
            if (!append && file.Length > 0)
            {
                file.SetLength(0);
            }

            _length = file.Length;
        }
        finally
        {
            _lock.ReleaseMutex();
        }
    }

    public override bool CanRead => false;

    public override bool CanWrite => true;

    /// <summary>False: a failed write is undone here, under the lock; the writer must not rewind a shared file.</summary>
    public override bool CanSeek => false;

    /// <summary>The file's length at the end of the last write (every process's writes included).</summary>
    public override long Length => _length;

    public override long Position
    {
        get => _length;
        set => throw new NotSupportedException();
    }

    /// <summary>Appends <paramref name="count"/> bytes at the end of the file, whatever other processes wrote.</summary>
    public override void Write(byte[] buffer, int offset, int count)
    {
        FileLocks.Enter(_lock);
        try
        {
            using FileStream file = OpenFile();
            long start = file.Seek(0, SeekOrigin.End);
            try
            {
                file.Write(buffer, offset, count);
            }
            catch
            {
                try
                {
                    file.SetLength(start);
                }
                catch (Exception)
                {
                    // The writer reports the failure; a torn tail stays only if the file cannot be truncated either.
                }

                throw;
            }

            _length = start + count;
        }
        finally
        {
            _lock.ReleaseMutex();
        }
    }

    /// <summary>Runs <paramref name="action"/> (a roll's renames) under the file's shared lock.</summary>
    public static void UnderLock(Mutex sharedLock, Action action)
    {
        FileLocks.Enter(sharedLock);
        try
        {
            action();
        }
        finally
        {
            sharedLock.ReleaseMutex();
        }
    }

    public override void Flush()
    {
        // Every write closes the file: nothing is held here.
    }

    public override int Read(byte[] buffer, int offset, int count) => throw new NotSupportedException();

    public override long Seek(long offset, SeekOrigin origin) => throw new NotSupportedException();

    public override void SetLength(long value) => throw new NotSupportedException();

    private FileStream OpenFile()
    {
        LogFile.CreateFolder(_path);
        return new FileStream(_path, FileMode.OpenOrCreate, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete, 1);
    }
}
