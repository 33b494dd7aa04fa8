package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A carrier spinning: searching every queue (and stealing) while holding P {@code processor}
 * before it gives up and parks. The event spans the search; {@code foundWork} says whether it
 * ended with a task. Committed by the spinning carrier; tracing settings only.
 */
@Name("loomgmp.CarrierSpin")
@Label("Carrier Spin")
@Description("A carrier searched all queues for work (spinning) before running a task or parking")
@Category({"loom-gmp", "Carriers"})
@StackTrace(false)
@Enabled(false) // one per search: tracing settings only
public final class CarrierSpinEvent extends jdk.jfr.Event {
    @Label("P")
    @Description("Id of the P the spinning carrier holds")
    public int processor;

    @Label("Carrier Thread Id")
    @Description("Thread id of the spinning carrier")
    public long carrierThread;

    @Label("Found Work")
    @Description("Whether the search ended with a task to run (false: the carrier went on to park)")
    public boolean foundWork;
}
