using System.Collections.Generic;
using System.Threading;

namespace LowLatencyLog.Engine;

/// <summary>A caller of <c>Flush</c> waiting until the worker has delivered <see cref="Target"/> items and flushed.</summary>
internal sealed class FlushRequest
{
    private readonly ManualResetEventSlim _done = new ManualResetEventSlim(false);
    private volatile bool _succeeded;

    public FlushRequest(long target)
    {
        Target = target;
    }

    /// <summary>How many items the queue had accepted when <c>Flush</c> was called.</summary>
    public long Target { get; }

    public void Complete(bool succeeded)
    {
        _succeeded = succeeded;
        _done.Set();
    }

    public bool Wait(int timeoutMilliseconds) => _done.Wait(timeoutMilliseconds) && _succeeded;
}

/// <summary>
/// Flush requests kept apart from the queue, so they need no field in every slot and cost producers nothing. Callers
/// add; the worker takes those whose target it has reached. Cold path: a lock is fine.
/// </summary>
internal sealed class FlushRequests
{
    private readonly object _lock = new object();
    private readonly List<FlushRequest> _waiting = new List<FlushRequest>();
    private volatile bool _pending;
    private bool _finished;

    /// <summary>Worker side, cheap: a request is waiting.</summary>
    public bool Pending => _pending;

    /// <summary>False once the worker has finished: there is nobody left to serve the request.</summary>
    public bool Add(FlushRequest request)
    {
        lock (_lock)
        {
            if (_finished)
            {
                return false;
            }

            _waiting.Add(request);
            _pending = true;
            return true;
        }
    }

    /// <summary>Worker only: removes and returns the requests whose target is at most <paramref name="drained"/>.</summary>
    public List<FlushRequest>? TakeReached(long drained)
    {
        lock (_lock)
        {
            List<FlushRequest>? reached = null;
            for (int i = _waiting.Count - 1; i >= 0; i--)
            {
                if (_waiting[i].Target <= drained)
                {
                    (reached ??= new List<FlushRequest>()).Add(_waiting[i]);
                    _waiting.RemoveAt(i);
                }
            }

            _pending = _waiting.Count > 0;
            return reached;
        }
    }

    /// <summary>Worker only, last: no request is served after this; returns those still waiting, for the final answer.</summary>
    public List<FlushRequest> Finish()
    {
        lock (_lock)
        {
            _finished = true;
            _pending = false;
            var rest = new List<FlushRequest>(_waiting);
            _waiting.Clear();
            return rest;
        }
    }
}
