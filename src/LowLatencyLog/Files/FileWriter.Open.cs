using System;
using System.Diagnostics;
using System.IO;
using System.Text;
using System.Threading;
using log4net.Core;
using LowLatencyLog.Text;

namespace LowLatencyLog.Files;

// FileWriter, continued: opening the file under its locking model (the first open, one after a failure, one after a roll).
internal sealed partial class FileWriter
{
    /// <summary>Takes the locks of <paramref name="sharing"/>, prepares the files (a rolling policy rolls what earlier
    /// runs left) and opens the file (a failed open is reported and retried).</summary>
    /// <param name="fullPath">The path as written, absolute: the shared lock's name.</param>
    /// <param name="path">The file, environment variables expanded.</param>
    /// <param name="sharing">The locking model.</param>
    /// <param name="bufferSize">The buffer's size in bytes.</param>
    /// <param name="append">False to truncate the file.</param>
    /// <param name="rollingLock">Take a rolling lock, as log4net's own appender for these settings does.</param>
    /// <returns>False if the shared lock could not be had (reported): nothing is written.</returns>
    public bool Start(string fullPath, string path, FileSharing sharing, int bufferSize, bool append, bool rollingLock)
    {
        Debug.Assert(Monitor.IsEntered(_gate), "called under the appender's lock");
        if (!SetLocking(sharing, fullPath, rollingLock))
        {
            _writer = null; // refused: reported, and nothing is written without the lock
            return false;
        }

        _writer = new EventBufferWriter(_encoding, bufferSize);
        _reportedDrops = 0;
        _closed = false;
        try
        {
            if (_shared)
            {
                // Another process may be rolling these files right now.
                string start = path;
                _sharedLock!.EnterRoll();
                try
                {
                    start = StartFiles(start, append);
                }
                finally
                {
                    _sharedLock.ExitRoll();
                }

                path = start;
            }
            else
            {
                path = StartFiles(path, append);
            }
        }
        catch (Exception ex)
        {
            _owner.ReportError($"Could not prepare the files of [{path}].", ex, ErrorCode.GenericFailure);
        }

        // A first open that fails is retried as it was meant: appendToFile=false still truncates, with a header.
        _firstOpen = Open(path, append, recovering: false) ? null : append;
        return true;
    }

    /// <summary>Sets up the locking model; false (reported) if the shared lock it needs cannot be had.</summary>
    private bool SetLocking(FileSharing sharing, string fullPath, bool rollingLock)
    {
        _sharedLock?.Dispose();
        _sharedLock = null;
        _sharing = sharing;
        _shared = sharing == FileSharing.Shared;
        if (!_shared)
        {
            return true;
        }

        try
        {
            _sharedLock = SharedLock.Create(fullPath, rollingLock);
            return true;
        }
        catch (IOException ex)
        {
            // Refused as a second writer under ExclusiveLock is: writes without the lock could overwrite others' lines.
            _owner.ReportError($"The file [{fullPath}] is not written: {ex.Message}", ex, ErrorCode.FileOpenFailure);
            _owner.ReportSetting(ex.Message);
            return false;
        }
    }

    /// <summary>Prepares the files (a rolling policy rolls what is left from earlier runs); returns the file to open.</summary>
    private string StartFiles(string path, bool append) =>
        _rolling?.Start(path, append, _shared, (message, ex) => _owner.ReportError(message, ex, ErrorCode.GenericFailure)) ?? path;

    /// <summary>Opens <paramref name="path"/> as the locking model says.</summary>
    private Stream OpenFileStream(string path, bool append) => _sharing switch
    {
        FileSharing.Shared => new SharedFileStream(path, append, _sharedLock!, _encoding),
        FileSharing.None => LogFile.Open(path, append, exclusive: false),
        _ => _files.Open(path, append),
    };
    /// <summary>Opens the file again after a failure: as the first open meant to, if that one never succeeded.</summary>
    private bool Reopen()
    {
        bool? first = _firstOpen;
        bool opened = first is { } append ? Open(_path!, append, recovering: false) : Open(_path!, append: true, recovering: true);
        if (opened)
        {
            _firstOpen = null;
        }

        return opened;
    }

    /// <summary>Opens the file: byte-order mark for an empty file, a newline after a torn last line, the header.</summary>
    /// <param name="path">The file.</param>
    /// <param name="append">False to truncate it.</param>
    /// <param name="recovering">True when opening again after a failure: the header is written only if the file is new.</param>
    /// <param name="reuse">An open handle on <paramref name="path"/> to truncate and write on, instead of opening it.</param>
    private bool Open(string path, bool append, bool recovering, Stream? reuse = null)
    {
        EventBufferWriter writer = _writer!;
        _path = path;
        try
        {
            bool midLine = append && !_shared && LogFile.EndsMidLine(path, _encoding); // a shared stream checks under its lock
            Stream stream = reuse != null ? Truncated(reuse) : OpenFileStream(path, append);
            long length;
            try
            {
                length = stream.CanSeek || stream is SharedFileStream ? stream.Length : 0;
                var prefix = new StringBuilder();
                if (midLine)
                {
                    prefix.Append(Environment.NewLine);
                }

                string? header = _owner.Header;
                if (header != null && (!recovering || length == 0))
                {
                    prefix.Append(header);
                }

                // Written straight to the file, ahead of anything already buffered for it.
                byte[] preamble = length == 0 ? _encoding.GetPreamble() : Array.Empty<byte>();
                byte[] text = _encoding.GetBytes(prefix.ToString());
                _writtenAtOpen = preamble.Length + text.Length;
                if (preamble.Length + text.Length > 0)
                {
                    byte[] bytes = new byte[preamble.Length + text.Length];
                    System.Buffer.BlockCopy(preamble, 0, bytes, 0, preamble.Length);
                    System.Buffer.BlockCopy(text, 0, bytes, preamble.Length, text.Length);
                    stream.Write(bytes, 0, bytes.Length);
                }
            }
            catch
            {
                stream.Dispose();
                throw;
            }

            _stream = stream;
            writer.Stream = stream;
            writer.EncodePending();
            CountFrom(length);
            _failing = false;
            _nextExistenceCheck = Stopwatch.GetTimestamp() + Ticks(ExistenceCheckIntervalMs);
            return true;
        }
        catch (Exception ex)
        {
            _owner.ReportError(
                $"Could not open the file [{path}]; events are kept in memory and opening is retried.", ex, ErrorCode.FileOpenFailure);
            RetryLater(); // no timer once closed (ArmTimer checks)
            return false;
        }
    }

    private static Stream Truncated(Stream stream)
    {
        try
        {
            stream.SetLength(0);
            stream.Position = 0;
            return stream;
        }
        catch
        {
            stream.Dispose(); // Open reports the failure and retries with a fresh handle
            throw;
        }
    }
}
