using System.IO;

namespace LowLatencyLog.Files;

/// <summary>The file operations the file appenders make; tests pass their own to inject failures.</summary>
internal interface IFileSystem
{
    /// <summary>Opens a log file for writing (<see cref="LogFile.Open(string, bool)"/>).</summary>
    Stream Open(string path, bool append);

    /// <summary>Whether a file exists at <paramref name="path"/>.</summary>
    bool Exists(string path);
}

/// <summary>The real disk.</summary>
internal sealed class DiskFileSystem : IFileSystem
{
    public static readonly DiskFileSystem Instance = new DiskFileSystem();

    private DiskFileSystem()
    {
    }

    public Stream Open(string path, bool append) => LogFile.Open(path, append);

    public bool Exists(string path) => File.Exists(path);
}
