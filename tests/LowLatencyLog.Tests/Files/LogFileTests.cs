using System.IO;
using System.Text;
using LowLatencyLog.Files;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Files;

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

    // existing: the file's content before the open, null for no file (nor folder).
    [TestCase("an older and longer content\n", false, "new\n", ExpectedResult = "new\n", TestName = "NotAppending_AFileWithContent_IsEmptiedFirst")]
    [TestCase(null, false, "first\n", ExpectedResult = "first\n", TestName = "NotAppending_AMissingFileAndFolder_AreCreated")]
    [TestCase("", false, "first\n", ExpectedResult = "first\n", TestName = "NotAppending_AnEmptyFile_IsWritten")]
    [TestCase("old\n", true, "new\n", ExpectedResult = "old\nnew\n", TestName = "Appending_KeepsTheContent_AndWritesAtTheEnd")]
    [TestCase(null, true, "first\n", ExpectedResult = "first\n", TestName = "Appending_AMissingFileAndFolder_AreCreated")]
    public string Open_WritesWhereTheSettingSays(string? existing, bool append, string text)
    {
        string path = Path.Combine(_folder, "sub", "app.log");
        if (existing != null)
        {
            Directory.CreateDirectory(Path.GetDirectoryName(path)!);
            File.WriteAllText(path, existing);
        }

        Write(path, append, text);
        return File.ReadAllText(path);
    }

    private static void Write(string path, bool append, string text)
    {
        using Stream stream = LogFile.Open(path, append);
        byte[] bytes = Encoding.UTF8.GetBytes(text);
        stream.Write(bytes, 0, bytes.Length);
    }
}
