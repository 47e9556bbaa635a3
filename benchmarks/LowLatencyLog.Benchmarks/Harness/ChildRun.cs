using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Runtime.InteropServices;
using System.Text.Json;

namespace LowLatencyLog.Benchmarks;

/// <summary>This benchmark program run again in a new process, for a measurement that must start from a fresh heap
/// and runtime; the child prints its result as one line of JSON after a prefix.</summary>
internal static class ChildRun
{
    /// <summary>Runs <c>dotnet &lt;this dll&gt; args</c> and returns the result the child printed after
    /// <paramref name="prefix"/>; null, with the child's whole output in <paramref name="failure"/>, if it failed.</summary>
    public static T? Run<T>(IEnumerable<string> args, string prefix, IReadOnlyDictionary<string, string>? environment, out string failure)
        where T : class
    {
        var start = new ProcessStartInfo(DotnetHost())
        {
            RedirectStandardOutput = true,
            RedirectStandardError = true,
            UseShellExecute = false,
        };
        start.ArgumentList.Add(typeof(ChildRun).Assembly.Location);
        foreach (string arg in args)
        {
            start.ArgumentList.Add(arg);
        }

        foreach (KeyValuePair<string, string> variable in environment ?? new Dictionary<string, string>())
        {
            start.Environment[variable.Key] = variable.Value;
        }

        using Process child = Process.Start(start) ?? throw new InvalidOperationException("Could not start " + start.FileName);
        var stderr = child.StandardError.ReadToEndAsync();
        string stdout = child.StandardOutput.ReadToEnd();
        child.WaitForExit();
        string? line = stdout.Split('\n').Select(l => l.Trim()).FirstOrDefault(l => l.StartsWith(prefix, StringComparison.Ordinal));
        if (child.ExitCode != 0 || line == null)
        {
            failure = $"exit code {child.ExitCode}:{Environment.NewLine}{stdout}{stderr.Result}";
            return null;
        }

        failure = "";
        return JsonSerializer.Deserialize<T>(line.Substring(prefix.Length));
    }

    /// <summary>The <c>dotnet</c> host that runs this process's runtime (this process may be the app host).</summary>
    private static string DotnetHost()
    {
        string exe = RuntimeInformation.IsOSPlatform(OSPlatform.Windows) ? "dotnet.exe" : "dotnet";
        if (Path.GetFileName(Environment.ProcessPath) == exe)
        {
            return Environment.ProcessPath!;
        }

        // <root>/shared/Microsoft.NETCore.App/<version>/
        string root = Path.GetFullPath(Path.Combine(RuntimeEnvironment.GetRuntimeDirectory(), "..", "..", ".."));
        string host = Path.Combine(root, exe);
        return File.Exists(host) ? host : exe;
    }
}
