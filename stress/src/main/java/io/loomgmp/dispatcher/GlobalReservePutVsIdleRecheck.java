package io.loomgmp.dispatcher;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * {@link GlobalPutVsIdleRecheck} when the put's node cannot be allocated: the task goes to the
 * global queue's reserve (its count is a volatile write under the reserve's lock), then the
 * submitter reads the idle count; a carrier publishes its P idle (a volatile write), then checks
 * the queue ({@code isEmpty}, which reads the reserve's count). The allocation fault stands for an
 * {@code OutOfMemoryError}. r1 = the idle count the submitter saw, r2 = whether the carrier saw the
 * task. Both 0 means the task waits in the reserve while the carrier parks and nobody wakes anyone.
 */
@JCStressTest
@Description("GlobalQueue: a put into the reserve (out of memory), then a read of the idle count, racing a carrier publishing idle, then checking the queue")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both saw each other")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the submitter saw the idle P and wakes a carrier")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the carrier saw the task and takes its P back")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: a task in the reserve, a P idle, nobody told")
@State
public class GlobalReservePutVsIdleRecheck {
    private static final OutOfMemoryError NO_NODE = new OutOfMemoryError("no node (test)");
    private final GlobalQueue global = new GlobalQueue(() -> {
        throw NO_NODE;
    });
    private volatile int idleProcs;

    @Actor
    public void submitter(II_Result r) {
        global.putReady(new StressTask(0));
        r.r1 = idleProcs;
    }

    @Actor
    public void carrier(II_Result r) {
        idleProcs = 1;
        r.r2 = global.isEmpty() ? 0 : 1;
    }
}
