using System;
using log4net.Appender;
using LowLatencyLog.IO;

namespace LowLatencyLog.Tests.Support;

/// <summary>A clock the test moves by hand, for our rolling appender and for log4net's.</summary>
internal sealed class FakeClock : IClock, RollingFileAppender.IDateTime
{
    public FakeClock(DateTime now) => Now = now;

    public DateTime Now { get; set; }
}
