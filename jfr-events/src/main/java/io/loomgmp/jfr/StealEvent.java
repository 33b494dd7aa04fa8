package io.loomgmp.jfr;

import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Enabled;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.StackTrace;

/**
 * A successful steal: a carrier holding P {@code thief}, out of local work, took {@code tasks}
 * tasks (half a ring, rounded up, or the victim's runnext) from P {@code victim}. Committed by the
 * thief's carrier; tracing settings only.
 */
@Name("loomgmp.Steal")
@Label("Steal")
@Description("A P out of work took tasks from another P's run queue")
@Category({"loom-gmp", "Scheduling"})
@StackTrace(false)
@Enabled(false) // as frequent as runs under imbalance: tracing settings only
public final class StealEvent extends jdk.jfr.Event {
    @Label("Thief P")
    @Description("Id of the P that stole")
    public int thief;

    @Label("Victim P")
    @Description("Id of the P whose queue the tasks came from")
    public int victim;

    @Label("Tasks")
    @Description("Number of tasks moved by this steal")
    public int tasks;
}
