using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using Microsoft.Win32.SafeHandles;

namespace LowLatencyLog.Files;

/// <summary>How a file appender shares its file with other writers (log4net's <c>lockingModel</c>).</summary>
internal enum FileSharing
{
    /// <summary><c>ExclusiveLock</c> (and no model): one writer holds the file open from start to close.</summary>
    Exclusive,

    /// <summary><c>MinimalLock</c>, <c>InterProcessLock</c>: each write opens the file and appends to its end under a
    /// lock that every process writing the file takes (<see cref="SharedLock"/>).</summary>
    Shared,

    /// <summary><c>NoLock</c>: held open from start to close, as Exclusive, but other writers may open the file too (they
    /// write at their own positions, as with log4net's <c>NoLock</c>).</summary>
    None,
}

/// <summary>The locks behind <see cref="FileSharing"/>.</summary>
internal static class FileLocks
{
    private const int FOfdSetLk = 37; // F_OFD_SETLK, the same number on every Linux architecture
    private const short FWrLck = 1;
    private const int EAgain = 11;
    private const int EAccess = 13;

    /// <summary>
    /// Takes the exclusive lock of <see cref="FileSharing.Exclusive"/> on an open file: a second writer that asks for it
    /// (this library, in this process or another) is refused with an <see cref="IOException"/> naming the file.
    /// </summary>
    /// <remarks>
    /// Windows refuses a second writer through the share mode the file is opened with (read and delete only), as it
    /// does for log4net. Linux has no share modes: the lock is an open-file-description lock on the whole file, which
    /// binds other writers that ask for it and nobody else (readers, <c>tail</c>, log shippers, .NET readers, whose own
    /// locks are of another kind). A kernel before 3.15, a 32-bit process or another Unix leaves the file unlocked,
    /// and returns false.
    /// </remarks>
    /// <returns>True if the file is locked (or needs no lock: Windows).</returns>
    public static bool LockExclusive(FileStream stream, string path)
    {
        if (RuntimeInformation.IsOSPlatform(OSPlatform.Windows))
        {
            return true;
        }

        if (!RuntimeInformation.IsOSPlatform(OSPlatform.Linux) || IntPtr.Size != 8)
        {
            return false;
        }

        SafeFileHandle handle = stream.SafeFileHandle;
        bool added = false;
        try
        {
            handle.DangerousAddRef(ref added);
            var request = new LinuxLock { Type = FWrLck };
            if (fcntl(handle.DangerousGetHandle().ToInt32(), FOfdSetLk, ref request) == 0)
            {
                return true;
            }

            int error = Marshal.GetLastWin32Error();
            if (error == EAgain || error == EAccess)
            {
                throw new IOException(
                    $"The file [{path}] is being written by another appender or process, which holds it with lockingModel " +
                    "ExclusiveLock (the default). Give each process its own file, or set lockingModel to " +
                    "log4net.Appender.FileAppender+MinimalLock (or InterProcessLock) in every process that writes it.");
            }

            return false;
        }
        catch (EntryPointNotFoundException)
        {
            return false;
        }
        catch (DllNotFoundException)
        {
            return false;
        }
        finally
        {
            if (added)
            {
                handle.DangerousRelease();
            }
        }
    }

    private static int s_reportedUnlocked;

    /// <summary>Says once per process (log4net debug) that a second writer of a file is not refused here.</summary>
    public static void ReportUnlockedOnce()
    {
        if (Interlocked.Exchange(ref s_reportedUnlocked, 1) == 0)
        {
            log4net.Util.LogLog.Debug(typeof(FileLocks),
                "LowLatencyLog: files are written without the lock that refuses a second writer (not available on this OS, in a " +
                "32-bit process or on a Linux kernel before 3.15): give each process its own file.");
        }
    }

    [StructLayout(LayoutKind.Sequential)]
    private struct LinuxLock
    {
        public short Type;
        public short Whence;
        public long Start;
        public long Length; // 0: to the end of the file, however long it grows
        public int Pid;
    }

    [DllImport("libc", SetLastError = true)]
    [DefaultDllImportSearchPaths(DllImportSearchPath.SafeDirectories)]
    private static extern int fcntl(int fd, int command, ref LinuxLock request);
}
