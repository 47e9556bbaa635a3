using System;
using System.Globalization;
using System.IO;
using System.Runtime.InteropServices;
using System.Security.Cryptography;
using System.Text;
using System.Threading;

namespace LowLatencyLog.Files;

/// <summary>
/// The lock every process takes around a write to a <see cref="FileSharing.Shared"/> file, and around a roll: the named
/// mutexes log4net's own appenders take for the same file, so that a process on log4net's appenders and one on ours
/// exclude each other, plus one of this library that spans the whole machine.
/// </summary>
/// <remarks>
/// <para>log4net's <c>InterProcessLock</c> names its mutex after the file's absolute path with <c>\</c>, <c>:</c> and
/// <c>/</c> replaced by <c>_</c> (environment variables not expanded), with no prefix: on Windows it lives in the
/// session's namespace, on Unix in the session's folder of .NET's shared memory (<c>/tmp/.dotnet/shm/session&lt;id&gt;</c>).
/// <c>RollingFileAppender</c> takes <c>&lt;name&gt;_rolling</c> around its roll check. Both are taken here under the
/// same names. Processes in different sessions (two services) do not share log4net's names; the library's own
/// mutex (<c>Global\</c>, hashed path) excludes its own processes across sessions.</para>
/// <para>Order, the same in every process of this library: the rolling mutex, then the library's, then log4net's.
/// log4net's appenders never wait for one of these while holding another, so no order of theirs can deadlock with it.</para>
/// <para>A wait longer than <see cref="Timeout"/> (a process that holds the name and never lets go) fails with an
/// <see cref="IOException"/>: the writer keeps the events and retries, reporting it, rather than writing unprotected.</para>
/// </remarks>
internal sealed class SharedLock : IDisposable
{
    /// <summary>How long a writer waits for the lock before it reports and retries later (log4net's
    /// <c>RollingFileAppender.LockTimeoutMillis</c> default).</summary>
    internal const int Timeout = 10_000;

    private readonly string _path;
    private readonly Mutex _own;
    private readonly Mutex _log4net;
    private readonly Mutex? _rolling;

    private SharedLock(string path, Mutex own, Mutex log4net, Mutex? rolling)
    {
        _path = path;
        _own = own;
        _log4net = log4net;
        _rolling = rolling;
    }

    /// <summary>The name log4net's <c>InterProcessLock</c> gives the mutex of <paramref name="fullPath"/>.</summary>
    public static string Log4netName(string fullPath) => fullPath.Replace("\\", "_").Replace(":", "_").Replace("/", "_");

    /// <summary>The name of the library's own mutex for <paramref name="fullPath"/>, visible to the whole machine.</summary>
    public static string OwnName(string fullPath)
    {
        string key = RuntimeInformation.IsOSPlatform(OSPlatform.Windows) || RuntimeInformation.IsOSPlatform(OSPlatform.OSX)
            ? fullPath.ToUpperInvariant() // file names that differ only in case are one file there
            : fullPath;
        using var sha = SHA256.Create();
        byte[] hash = sha.ComputeHash(Encoding.UTF8.GetBytes(key));
        var name = new StringBuilder(@"Global\LowLatencyLog.", 60);
        for (int i = 0; i < 16; i++)
        {
            name.Append(hash[i].ToString("x2", CultureInfo.InvariantCulture));
        }

        return name.ToString();
    }

    /// <summary>Creates (or opens) the mutexes of <paramref name="fullPath"/>, as log4net writes it (absolute, not
    /// expanded); the rolling one too if <paramref name="rolling"/>.</summary>
    /// <exception cref="IOException">A mutex cannot be created (a read-only or full /tmp on Unix, a path too long for a
    /// mutex name, a mutex of another account on Windows); the message says which and what it means.</exception>
    public static SharedLock Create(string fullPath, bool rolling)
    {
        var created = new Mutex?[3];
        string name = "";
        try
        {
            name = OwnName(fullPath);
            created[0] = new Mutex(false, name);
            name = Log4netName(fullPath);
            created[1] = new Mutex(false, name);
            if (rolling)
            {
                name = Log4netName(fullPath) + "_rolling";
                created[2] = new Mutex(false, name);
            }

            return new SharedLock(fullPath, created[0]!, created[1]!, created[2]);
        }
        catch (Exception ex) when (!(ex is OutOfMemoryException))
        {
            foreach (Mutex? mutex in created)
            {
                mutex?.Dispose();
            }

            throw new IOException(
                $"Could not create the lock [{name}] that every process writing [{fullPath}] takes around its writes ({ex.Message}). " +
                "Nothing is written to the file without it: writes without the lock could overwrite other processes' lines. " +
                "On Unix .NET keeps named locks in /tmp/.dotnet/shm (it must be writable, and the name at most 255 characters); " +
                "otherwise use lockingModel ExclusiveLock and one file per process.", ex);
        }
    }

    /// <summary>Takes the file's lock (recursively, on this thread).</summary>
    /// <returns>True if a process died holding it: the file may end in a torn line.</returns>
    /// <exception cref="IOException">Not had within <see cref="Timeout"/>.</exception>
    public bool Enter()
    {
        bool abandoned = Wait(_own);
        try
        {
            abandoned |= Wait(_log4net);
        }
        catch
        {
            _own.ReleaseMutex();
            throw;
        }

        return abandoned;
    }

    /// <summary>Releases what <see cref="Enter"/> took.</summary>
    public void Exit()
    {
        _log4net.ReleaseMutex();
        _own.ReleaseMutex();
    }

    /// <summary>Takes log4net's rolling mutex (if this file rolls), then the file's lock.</summary>
    public void EnterRoll()
    {
        if (_rolling != null)
        {
            Wait(_rolling);
        }

        try
        {
            Enter();
        }
        catch
        {
            _rolling?.ReleaseMutex();
            throw;
        }
    }

    /// <summary>Releases what <see cref="EnterRoll"/> took.</summary>
    public void ExitRoll()
    {
        Exit();
        _rolling?.ReleaseMutex();
    }

    private bool Wait(Mutex mutex)
    {
        try
        {
            if (!mutex.WaitOne(Timeout))
            {
                throw new IOException(
                    $"Waited {Timeout} ms for the lock of [{_path}] held by another process; the events stay buffered and the " +
                    "write is retried.");
            }

            return false;
        }
        catch (AbandonedMutexException)
        {
            return true; // owned now; the dead holder's last write may be torn
        }
    }

    public void Dispose()
    {
        _rolling?.Dispose();
        _log4net.Dispose();
        _own.Dispose();
    }
}
