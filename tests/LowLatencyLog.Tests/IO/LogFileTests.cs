using System.IO;
using System.Text;
using LowLatencyLog.IO;
using NUnit.Framework;

namespace LowLatencyLog.Tests.IO;

/// <summary>How the file appenders open their files: truncated unless appending, appended at the end otherwise.</summary>
public sealed class LogFileTests
{
    private string _folder = null!;

    [SetUp]
    public void SetUp() => _folder = Path.Combine(Path.GetTempPath(), "logfile-" + System.Guid.NewGuid().ToString("N"));

    [TearDown]
    public void TearDown()
    {
        if (Directory.Exists(_folder))
        {
            Directory.Delete(_folder, recursive: true);
        }
    }

    [Test]
    public void NotAppending_AFileWithContent_IsEmptiedFirst()
    {
        string path = Path.Combine(_folder, "app.log");
        Directory.CreateDirectory(_folder);
        File.WriteAllText(path, "an older and longer content\n");
        Write(path, append: false, "new\n");
        Assert.That(File.ReadAllText(path), Is.EqualTo("new\n"));
    }

    [Test]
    public void NotAppending_AMissingFileAndFolder_AreCreated()
    {
        string path = Path.Combine(_folder, "sub", "app.log");
        Write(path, append: false, "first\n");
        Assert.That(File.ReadAllText(path), Is.EqualTo("first\n"));
    }

    [Test]
    public void NotAppending_AnEmptyFile_IsWritten()
    {
        string path = Path.Combine(_folder, "app.log");
        Directory.CreateDirectory(_folder);
        File.WriteAllText(path, "");
        Write(path, append: false, "first\n");
        Assert.That(File.ReadAllText(path), Is.EqualTo("first\n"));
    }

    [Test]
    public void Appending_KeepsTheContent_AndWritesAtTheEnd()
    {
        string path = Path.Combine(_folder, "app.log");
        Directory.CreateDirectory(_folder);
        File.WriteAllText(path, "old\n");
        Write(path, append: true, "new\n");
        Assert.That(File.ReadAllText(path), Is.EqualTo("old\nnew\n"));
    }

    private static void Write(string path, bool append, string text)
    {
        using Stream stream = LogFile.Open(path, append);
        byte[] bytes = Encoding.UTF8.GetBytes(text);
        stream.Write(bytes, 0, bytes.Length);
    }
}
