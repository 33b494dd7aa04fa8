package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Period;
import jdk.jfr.StackTrace;

/**
 * The figures of Go's {@code GODEBUG=schedtrace} line, plus each P's queue length and the
 * cumulative counters, taken periodically. The scheduler registers a hook with
 * {@link jdk.jfr.FlightRecorder#addPeriodicEvent} that fills one event from its snapshot and
 * commits it; JFR calls the hook at the period the settings give (1 s in {@code loomgmp.jfc},
 * 10 ms in {@code loomgmp-trace.jfc}). The viewer draws its counters in the "Stats" section.
 */
@Name("loomgmp.SchedTrace")
@Label("Scheduler Trace")
@Description("Periodic schedtrace figures of a loom-gmp scheduler: Ps, carriers, queue lengths, counters")
@Category({"loom-gmp", "Scheduling"})
@StackTrace(false)
@Period("1 s")
public final class SchedTraceEvent extends jdk.jfr.Event {
    @Label("Scheduler")
    @Description("The scheduler's name (its carriers are named <name>-M<n>)")
    public String scheduler;

    @Label("Ps")
    @Description("Number of Ps (gomaxprocs)")
    public int procs;

    @Label("Idle Ps")
    @Description("Ps on the idle list (idleprocs)")
    public int idleProcs;

    @Label("Carriers")
    @Description("Carrier threads alive (threads)")
    public int carriers;

    @Label("Spinning Carriers")
    @Description("Carriers searching for work (spinningthreads)")
    public int spinningCarriers;

    @Label("Idle Carriers")
    @Description("Carriers parked on the idle list (idlethreads)")
    public int idleCarriers;

    @Label("Blocked Carriers")
    @Description("Carriers still in a task whose P sysmon handed to another carrier")
    public int blockedCarriers;

    @Label("Global Queue")
    @Description("Tasks on the global queue (runqueue)")
    public int globalQueue;

    @Label("Local Queues")
    @Description("Runnable tasks per P including runnext, space-separated by P id, like Go's [0 3] without brackets")
    public String localQueues;

    @Label("Tasks Run")
    @Description("Tasks run since the scheduler started, over all Ps")
    public long tasksRun;

    @Label("Steals")
    @Description("Successful steals since the scheduler started")
    public long steals;

    @Label("Preempt Requests")
    @Description("Preemption requests by sysmon since the scheduler started")
    public long preemptRequests;

    @Label("Handoffs")
    @Description("P hand-offs by sysmon since the scheduler started")
    public long handoffs;
}
