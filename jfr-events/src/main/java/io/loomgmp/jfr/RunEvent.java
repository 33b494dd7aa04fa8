package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Threshold;

/**
 * One run of a task on a P: from the moment its carrier takes it off a queue to the moment
 * {@code run()} returns (for a virtual thread, until its continuation parks, yields or ends).
 * The trace viewer draws each one as a slice on the P's lane, labelled by the virtual thread.
 *
 * <p>Committed by the carrier that ran the task, once per run: off by default and on only in the
 * tracing settings ({@code loomgmp-trace.jfc}). A {@code threshold} (e.g.
 * {@code loomgmp.Run#threshold=10ms}) keeps only the long runs.
 */
@Name("loomgmp.Run")
@Label("Run")
@Description("One run of a task (a virtual thread's continuation) on a P, from the moment its carrier"
        + " takes it to the moment it returns")
@Category({"loom-gmp", "Scheduling"})
@StackTrace(false)
@Enabled(false) // per run: only the tracing settings turn it on
@Threshold("0 ns")
public final class RunEvent extends jdk.jfr.Event {
    /** Taken from the P's runnext slot (LIFO hand-off; inherits the time slice). */
    public static final String SOURCE_RUNNEXT = "runnext";
    /** Popped from the P's local ring. */
    public static final String SOURCE_LOCAL = "local";
    /** Taken from the global queue in a batch because the local queue was empty. */
    public static final String SOURCE_GLOBAL = "global";
    /** Taken from the global queue on the fairness tick (every 61st schedule). */
    public static final String SOURCE_FAIRNESS = "fairness";
    /** Stolen from another P's ring or runnext. */
    public static final String SOURCE_STOLEN = "stolen";

    /** How the run ended was not recorded. */
    public static final String END_UNKNOWN = "unknown";
    /** The task yielded ({@code Thread.yield}); it went to the global queue. */
    public static final String END_YIELDED = "yielded";
    /** The virtual thread parked (blocked). */
    public static final String END_PARKED = "parked";
    /** The task finished (the virtual thread terminated). */
    public static final String END_FINISHED = "finished";
    /** The task gave up the P at a preemption poll after sysmon's request. */
    public static final String END_PREEMPTED = "preempted";

    @Label("P")
    @Description("Id of the P (processor) the task ran on, 0 to procs - 1")
    public int processor;

    @Label("Carrier Thread Id")
    @Description("Thread id (Thread.threadId) of the carrier platform thread that ran the task")
    public long carrierThread;

    @Label("Virtual Thread Id")
    @Description("Thread id of the virtual thread whose continuation ran; 0 when the task was not a virtual thread")
    public long virtualThread;

    @Label("Source")
    @Description("Where the task was taken from: runnext, local, global, fairness or stolen")
    public String source;

    @Label("End")
    @Description("How the run ended: yielded, parked, finished, preempted, or unknown when not recorded")
    public String end = END_UNKNOWN;
}
