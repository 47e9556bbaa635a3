using System;
using System.Diagnostics;
using System.Linq;
using System.Reflection;
using System.Threading;
using LowLatencyLog.Engine;
using LowLatencyLog.Engine.Disruptor;
using LowLatencyLog.Engine.Waiting;
using NUnit.Framework;

namespace LowLatencyLog.Tests.Engine;

/// <summary>
/// The queues' and the parking handshake's invariant checks run: each fires on a state the protocol cannot reach
/// (made here by writing a private field), a fired assert fails the test it fired in, and the checks are compiled
/// into Debug builds only.
/// </summary>
public sealed class InvariantCheckTests
{
    private const BindingFlags Private = BindingFlags.Instance | BindingFlags.NonPublic;

    [Test]
    public void EveryInvariantCheckOfTheEngine_IsDebugOnly()
    {
        Type[] checkedTypes = { typeof(BoundedQueue<>), typeof(QueueSegment<>), typeof(HotSwapQueue<>), typeof(DisruptorQueue<>), typeof(Parking) };
        foreach (Type type in checkedTypes)
        {
            Assert.That(type.GetMethod("AssertInvariants", Private), Is.Not.Null, type.Name);
        }

        MethodInfo[] checks = typeof(BoundedQueue<>).Assembly.GetTypes()
            .Where(t => t.Namespace != null && t.Namespace.StartsWith("LowLatencyLog.Engine", StringComparison.Ordinal))
            .SelectMany(t => t.GetMethods(Private | BindingFlags.Public | BindingFlags.DeclaredOnly))
            .Where(m => m.Name.StartsWith("Assert", StringComparison.Ordinal))
            .ToArray();
        Assert.That(checks, Has.Length.GreaterThanOrEqualTo(checkedTypes.Length + 5), "the checks and the per-buffer and per-slot helpers");
        foreach (MethodInfo check in checks)
        {
            Assert.That(
                check.GetCustomAttributes<ConditionalAttribute>().Select(a => a.ConditionString),
                Is.EqualTo(new[] { "DEBUG" }),
                $"{check.DeclaringType!.Name}.{check.Name}: its calls compile away in Release");
        }
    }

    [Test]
    public void AnAssertFiredAndSwallowedOnAnotherThread_IsRecorded_AndFailsTheTest()
    {
        // Trace.Fail takes the same route as a failed Debug.Assert and exists in Release too.
        var worker = new Thread(() =>
        {
            try
            {
                Trace.Fail("fired on a worker that contains every exception");
            }
            catch (DebugAssertException)
            {
            }
        });
        worker.Start();
        worker.Join();

        var hook = new DebugAsserts.FailTheTestAttribute();
        Assert.That(() => hook.AfterTest(null!), Throws.TypeOf<DebugAssertException>().With.Message.Contains("fired on a worker"));
        Assert.That(DebugAsserts.Take(), Is.Empty, "the hook took it");
    }

    [Test]
    public void BoundedQueue_AHeadPastTheClaims_Fires()
    {
        RequireDebugBuild();
        var queue = new BoundedQueue<int>(8, grow: false);
        Fill(queue, 3);
        Assert.That(queue.Drain(new int[8]), Is.EqualTo(3));
        queue.AssertInvariants();

        object segment = Field(queue, "_head");
        SetInStruct(segment, "_positions", nameof(QueuePositions.Head), 10L);

        Assert.That(DebugAsserts.Expect(() => queue.AssertInvariants()), Does.Contain("the head never passes the claims"));
    }

    [Test]
    public void QueueSegment_ASlotWithAnotherLapsSequence_FiresInTheDrain()
    {
        RequireDebugBuild();
        var queue = new BoundedQueue<int>(8, grow: false);
        Fill(queue, 2);
        var buffer = new int[1];
        Assert.That(queue.Drain(buffer), Is.EqualTo(1));

        // Position 1 is published (sequence 2); a sequence from a later lap is no state a slot ahead of the head can hold.
        var slots = (Array)Field(Field(queue, "_head"), "_slots");
        object slot = slots.GetValue(1)!;
        slot.GetType().GetField("Sequence")!.SetValue(slot, 1L + 8 + 8);
        slots.SetValue(slot, 1);

        Assert.That(DebugAsserts.Expect(() => queue.Drain(buffer)), Does.Contain("a slot ahead of the head holds its position or the next"));
    }

    [Test]
    public void HotSwapQueue_CompletedWhileOpen_Fires()
    {
        RequireDebugBuild();
        var queue = new HotSwapQueue<int>(8, grow: false);
        Fill(queue, 3);
        Assert.That(queue.Drain(new int[8]), Is.EqualTo(3));
        queue.AssertInvariants();

        queue.GetType().GetField("_completed", Private)!.SetValue(queue, true);

        Assert.That(DebugAsserts.Expect(() => queue.AssertInvariants()), Does.Contain("complete only once the final buffer is drained"));
    }

    [Test]
    public void DisruptorQueue_AGatingCacheAheadOfTheConsumer_Fires()
    {
        RequireDebugBuild();
        var queue = new DisruptorQueue<int>(8, ProducerType.Multi);
        Fill(queue, 3);
        Assert.That(queue.Drain(new int[8]), Is.EqualTo(3));
        queue.AssertInvariants();

        // A cache ahead of the consumer would let a producer overwrite a slot the worker has not read.
        SetInStruct(queue, "_seq", nameof(RingSequences.GatingCache), 5L);

        Assert.That(DebugAsserts.Expect(() => queue.AssertInvariants()), Does.Contain("the gating cache never runs ahead of the consumer"));
    }

    [Test]
    public void Parking_AFlagLeftRaisedWhileTheWorkerIsAwake_Fires()
    {
        RequireDebugBuild();
        var parking = new Parking(claimIsFullFence: true);
        parking.AssertInvariants();

        SetInStruct(parking, "_parked", "Value", 1);

        Assert.That(DebugAsserts.Expect(() => parking.AssertInvariants()), Does.Contain("the flag is down while the worker is awake"));
    }

    private static void RequireDebugBuild()
    {
#if !DEBUG
        Assert.Ignore("Debug.Assert compiles away in Release builds; the CI's Debug leg runs this test.");
#endif
    }

    private static void Fill(IEventQueue<int> queue, int count)
    {
        for (int i = 0; i < count; i++)
        {
            Assert.That(queue.TryEnqueue(i), Is.EqualTo(EnqueueResult.Enqueued));
        }
    }

    private static object Field(object owner, string name) => owner.GetType().GetField(name, Private)!.GetValue(owner)!;

    /// <summary>Writes one field of a struct held in a private field (boxed, changed, written back).</summary>
    private static void SetInStruct(object owner, string structField, string field, object value)
    {
        FieldInfo holder = owner.GetType().GetField(structField, Private)!;
        object boxed = holder.GetValue(owner)!;
        boxed.GetType().GetField(field)!.SetValue(boxed, value);
        holder.SetValue(owner, boxed);
    }
}
