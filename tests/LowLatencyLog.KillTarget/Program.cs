using System;
using System.IO;
using System.Text;
using LowLatencyLog.IO;

namespace LowLatencyLog.KillTarget;

/// <summary>
/// Writes numbered events through <see cref="EventBufferWriter"/> into the file named by the first argument, in
/// batches of varying size, and prints "flushed N" after each batch, forever. The test kills it at some point.
/// </summary>
public static class Program
{
    /// <summary>The text of event <paramref name="sequence"/>; the test rebuilds it to check each line.</summary>
    public static string EventText(long sequence) =>
        $"event {sequence} " + new string((char)('a' + (int)(sequence % 26)), (int)(sequence * 7 % 300)) + " ü😀\n";

    public static void Main(string[] args)
    {
        using var file = new FileStream(args[0], FileMode.Create, FileAccess.Write, FileShare.Read, 1);
        var writer = new EventBufferWriter(new UTF8Encoding(false), 4096) { Stream = file };
        long sequence = 0;
        for (int batch = 0; ; batch++)
        {
            int size = 1 + batch % 97;
            for (int i = 0; i < size; i++)
            {
                writer.Write(EventText(sequence++));
                writer.EndEvent();
            }

            writer.Flush();
            Console.Out.WriteLine("flushed " + sequence);
            Console.Out.Flush();
        }
    }
}
