using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.IO;
using System.Linq;
using System.Threading;
using System.Threading.Tasks;
using log4net;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace GenericHost;

/// <summary>
/// A generic-host app that logs through Microsoft.Extensions.Logging into log4net, where log4net.config puts
/// LowLatencyLog's async appender in front of its rolling file appender. A worker logs from a few threads, then stops
/// the host; once the host is disposed, log4net is shut down so the async appender writes what is still queued.
/// Arguments: [events per thread, default 10000] [log file, default logs/GenericHost.log].
/// </summary>
public static class Program
{
    public const string RepositoryName = "GenericHost";

    public static async Task<int> Main(string[] args)
    {
        int perThread = args.Length > 0 ? int.Parse(args[0]) : 10_000;
        string logFile = Path.GetFullPath(args.Length > 1 ? args[1] : Path.Combine("logs", "GenericHost.log"));

        // log4net.config names its file %property{GenericHostLogFile}; set before the provider reads the config.
        GlobalContext.Properties["GenericHostLogFile"] = logFile;

        HostApplicationBuilder builder = Host.CreateApplicationBuilder(args);
        builder.Logging.ClearProviders();
        builder.Logging.SetMinimumLevel(LogLevel.Information);
        builder.Logging.AddLog4Net(new Log4NetProviderOptions
        {
            // Absolute: the working directory of a service is rarely the app's folder.
            Log4NetConfigFileName = Path.Combine(AppContext.BaseDirectory, "log4net.config"),
            LoggerRepository = RepositoryName,
        });
        builder.Services.AddSingleton(new WorkerOptions(perThread));
        builder.Services.AddHostedService<Worker>();

        try
        {
            using (IHost host = builder.Build())
            {
                await host.RunAsync();
            }
        }
        finally
        {
            // The host and its logger factory are gone, so nothing logs any more: close the appenders now. The async
            // appender delivers what is queued (within its shutdownTimeout) and the file appender flushes and closes.
            // Shutting down earlier, in ApplicationStopping, would lose the host's own last messages.
            LogManager.ShutdownRepository(RepositoryName);
        }

        Console.WriteLine($"{Worker.Threads * perThread} events logged to {logFile}");
        return 0;
    }
}

public sealed record WorkerOptions(int PerThread);

/// <summary>Logs from several threads at once, then asks the host to stop.</summary>
public sealed class Worker : BackgroundService
{
    public const int Threads = 4;

    private readonly ILogger<Worker> _logger;
    private readonly WorkerOptions _options;
    private readonly IHostApplicationLifetime _lifetime;

    public Worker(ILogger<Worker> logger, WorkerOptions options, IHostApplicationLifetime lifetime)
    {
        _logger = logger;
        _options = options;
        _lifetime = lifetime;
    }

    protected override async Task ExecuteAsync(CancellationToken stoppingToken)
    {
        Task[] producers = Enumerable.Range(0, Threads).Select(t => Task.Run(() =>
        {
            for (int i = 0; i < _options.PerThread && !stoppingToken.IsCancellationRequested; i++)
            {
                // A unit of work as a request handler has one: an activity (its trace id) and a scope with the values
                // every line of it should carry. The log4net provider puts a dictionary scope's entries into log4net's
                // LogicalThreadContext properties; log4net.config writes them with %property{...}, and the async
                // appender captures them on this thread (fix=Auto sees %property in the layout). The provider version served
                // here (3.1.0) does not take the logger factory's external scopes, so ActivityTrackingOptions' trace and
                // span ids never reach log4net: the trace id goes into the scope by hand.
                using var activity = new Activity("order").Start();
                using (_logger.BeginScope(new Dictionary<string, object>
                {
                    ["orderId"] = $"{t}-{i}",
                    ["traceId"] = activity.TraceId.ToString(),
                }))
                {
                    _logger.LogInformation("worker {Thread} event {Index}", t, i);
                }
            }
        }, stoppingToken)).ToArray();
        await Task.WhenAll(producers);
        _logger.LogInformation("worker done");
        _lifetime.StopApplication();
    }
}
