using System;
using System.IO;
using System.Text;

namespace LowLatencyLog.Files;

/// <summary>
/// A log file shared with other processes (<see cref="FileSharing.Shared"/>): each write takes the file's shared lock,
/// opens the file, appends at its end, and closes it again, so several processes append whole batches of whole events
/// to one file, and a file renamed by another process's roll is followed by the next write.
/// </summary>
/// <remarks>
/// Open only during a write, as log4net's <c>MinimalLock</c>: other programs can read, rename or delete the file in
/// between. Each write starts at the end the file has under the lock, so every writer that takes the lock (this library,
/// log4net's <c>InterProcessLock</c>) appends after the others. A write that fails midway is cut off again before the
/// lock is released, so the file never keeps a torn event for other writers to append after; and a file whose last line
/// another writer left torn (killed mid-write) gets a line break before this writer's first event.
/// </remarks>
internal sealed class SharedFileStream : Stream
{
    private readonly string _path;
    private readonly SharedLock _lock;
    private readonly byte[] _lineFeed;
    private readonly byte[] _newLine;
    private long _length;
    private bool _checkTail = true;

    /// <summary>Creates the file if it is missing (empties it unless <paramref name="append"/>).</summary>
    public SharedFileStream(string path, bool append, SharedLock sharedLock, Encoding encoding)
    {
        _path = path;
        _lock = sharedLock;
        _lineFeed = encoding.GetBytes("\n");
        _newLine = encoding.GetBytes(Environment.NewLine);
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
        bool abandoned = _lock.Enter();
        try
        {
            LogFile.CreateFolder(_path);
            using var file = new FileStream(_path, FileMode.OpenOrCreate, FileAccess.ReadWrite, FileShare.ReadWrite | FileShare.Delete, 1);
            long start = file.Length;

            // Someone else wrote since this writer's last write (or died holding the lock): their last line may be torn.
            bool midLine = (_checkTail || abandoned || start != _length) && LogFile.EndsMidLine(file, _lineFeed);
            file.Seek(start, SeekOrigin.Begin);
            try
            {
                if (midLine)
                {
                    file.Write(_newLine, 0, _newLine.Length);
                }

                file.Write(buffer, offset, count);
                _length = file.Length;
                _checkTail = false;
            }
            catch (Exception)
            {
                CutBack(file, start);
                throw;
            }
        }
        finally
        {
            _lock.Exit();
        }
    }

    private static void CutBack(FileStream file, long start)
    {
        try
        {
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

    /// <summary>Runs <paramref name="action"/> under the file's shared lock.</summary>
    public static void UnderLock(SharedLock sharedLock, Action action)
    {
        sharedLock.Enter();
        try
        {
            action();
        }
        finally
        {
            sharedLock.Exit();
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
