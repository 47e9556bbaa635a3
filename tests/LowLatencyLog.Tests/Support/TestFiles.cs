using System;
using System.IO;
using LowLatencyLog.Files;

namespace LowLatencyLog.Tests.Support;

/// <summary>Files for a file appender under test: opened (and checked for) as the test says, the disk by default.</summary>
internal sealed class TestFiles : IFileSystem
{
    public TestFiles(Func<string, bool, Stream>? open = null, Func<string, bool>? exists = null)
    {
        OpenWith = open ?? LogFile.Open;
        ExistsWith = exists ?? File.Exists;
    }

    public Func<string, bool, Stream> OpenWith { get; set; }

    public Func<string, bool> ExistsWith { get; set; }

    public Stream Open(string path, bool append) => OpenWith(path, append);

    public bool Exists(string path) => ExistsWith(path);
}
