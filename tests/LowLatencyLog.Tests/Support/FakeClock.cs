using System;
using log4net.Appender;
using LowLatencyLog.Files;

namespace LowLatencyLog.Tests.Support;

/// <summary>A clock the test moves by hand, for our rolling appender and for log4net's.</summary>
internal sealed class FakeClock : IClock, RollingFileAppender.IDateTime
{
    private DateTime _now;

    public FakeClock(DateTime now) => _now = now;

    public DateTime Now
    {
        get
        {
            Reads++;
            return _now;
        }

        set => _now = value;
    }

    /// <summary>How many times <see cref="Now"/> was read.</summary>
    public int Reads { get; private set; }
}
