package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A task made runnable: a virtual thread unparked or started, queued in {@code placement}. The
 * trace viewer draws an arrow from the wake to the next run of the same virtual thread, as
 * {@code go tool trace} does for an unblock. Committed by the waking thread (a carrier, possibly
 * on behalf of the virtual thread it carries, or an outside thread such as a JDK timer); tracing
 * settings only.
 */
@Name("loomgmp.Wake")
@Label("Wake")
@Description("A task (virtual thread) was made runnable and queued")
@Category({"loom-gmp", "Scheduling"})
@StackTrace(false)
@Enabled(false) // once per unpark: tracing settings only
public final class WakeEvent extends jdk.jfr.Event {
    @Label("P")
    @Description("Id of the P the waker holds; -1 when the waker holds no P (an outside thread)")
    public int processor;

    @Label("Waker Thread Id")
    @Description("Thread id of the thread that made the task runnable (the carrier when a virtual thread woke it)")
    public long wakerThread;

    @Label("Virtual Thread Id")
    @Description("Thread id of the virtual thread made runnable; 0 when the task is not a virtual thread")
    public long virtualThread;

    @Label("Placement")
    @Description("Where the task was queued: runnext, local or global")
    public String placement;
}
