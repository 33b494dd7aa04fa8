package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;

/**
 * A preemption: sysmon asking the task on a P to give the P up ({@code action = "requested"},
 * committed by sysmon), or the P honouring that request ({@code action = "honoured"}, committed by
 * the P's carrier: at a preemption poll, or by the scheduling loop skipping runnext). Rare by
 * construction (at most one request per time slice per P), so it is on in both settings files and
 * by default.
 */
@Name("loomgmp.Preempt")
@Label("Preempt")
@Description("Sysmon asked a P's running task to give the P up (requested), or the P gave it up (honoured)")
@Category({"loom-gmp", "sysmon"})
@StackTrace(false)
public final class PreemptEvent extends jdk.jfr.Event {
    /** Sysmon raised the request. */
    public static final String ACTION_REQUESTED = "requested";
    /** The P acted on the request. */
    public static final String ACTION_HONOURED = "honoured";

    @Label("P")
    @Description("Id of the P asked to give up its task")
    public int processor;

    @Label("Action")
    @Description("requested (by sysmon) or honoured (by the P)")
    public String action;

    @Label("Carrier Thread Id")
    @Description("Thread id of the carrier holding the P")
    public long carrierThread;

    @Label("Time Slice")
    @Description("How long the P had been in the same time slice (its schedtick unchanged)")
    @Timespan(Timespan.NANOSECONDS)
    public long sliceNanos;
}
