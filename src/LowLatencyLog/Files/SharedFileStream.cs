using System;
using System.IO;
using System.Threading;

namespace LowLatencyLog.Files;

/// <summary>
/// A log file shared with other processes (<see cref="FileSharing.Shared"/>): each write takes the file's shared lock,
/// opens the file in append mode, writes, and closes it again, so several processes append whole batches of whole
/// events to one file, and a file renamed by another process's roll is followed by the next write.
/// </summary>
/// <remarks>
/// Open only during a write, as log4net's <c>MinimalLock</c>: other programs can read, rename or delete the file in
/// between. Each write starts at the end the file has when it is opened (.NET's append mode seeks there; it is not the
/// operating system's atomic append), so writers that do not take the lock (log4net's own appenders, a process with
/// another temp folder) can still overwrite each other's last write. A write that fails midway is cut off again before
/// the lock is released, so the file never keeps a torn event for other writers to append after. Without a lock (it
/// could not be created) the writes still append whole batches; only their interleaving is no longer excluded.
/// </remarks>
internal sealed class SharedFileStream : Stream
{
    private readonly string _path;
    private readonly Mutex? _lock;
    private long _length;

    /// <summary>Creates the file if it is missing (empties it unless <paramref name="append"/>).</summary>
    public SharedFileStream(string path, bool append, Mutex? sharedLock)
    {
        _path = path;
        _lock = sharedLock;
        UnderLock(_lock, () =>
        {
            LogFile.CreateFolder(_path);
            using var file = new FileStream(_path, FileMode.OpenOrCreate, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete, 1);
            if (!append && file.Length > 0)
            {
                file.SetLength(0);
            }

            _length = file.Length;
        });
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
        if (_lock != null)
        {
            FileLocks.Enter(_lock);
        }

        try
        {
            LogFile.CreateFolder(_path);
            long start;
            Exception failure;
            using (var file = new FileStream(_path, FileMode.Append, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete, 1))
            {
                start = file.Length;
                try
                {
                    file.Write(buffer, offset, count);
                    _length = file.Length;
                    return;
                }
                catch (Exception e)
                {
                    failure = e; // cut off below, through a handle that may truncate (an append-mode one may not)
                }
            }

            CutBackTo(start);
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Capture(failure).Throw();
        }
        finally
        {
            _lock?.ReleaseMutex();
        }
    }

    private void CutBackTo(long start)
    {
        try
        {
            using var file = new FileStream(_path, FileMode.Open, FileAccess.Write, FileShare.ReadWrite | FileShare.Delete, 1);
            if (file.Length > start)
            {
                file.SetLength(start);
            }
        }
        catch (Exception)
        {
            // The writer reports the failure; a torn tail stays only if the file cannot be truncated either.
        }
    }

    /// <summary>Runs <paramref name="action"/> (a roll's renames) under the file's shared lock, if there is one.</summary>
    public static void UnderLock(Mutex? sharedLock, Action action)
    {
        if (sharedLock == null)
        {
            action();
            return;
        }

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
}
