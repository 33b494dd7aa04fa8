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
 * The wake-up protocol of the lock-free global queue (see {@code Idle}): a thread that is not a
 * carrier puts a task, then reads the idle count ({@code Idle.wakeP}); a carrier publishes its P
 * idle ({@code Idle.putP}, a volatile write), then checks the global queue before parking
 * ({@code Parking.park}). {@code idleProcs} stands for the idle count, a volatile int as
 * in {@code Idle}. r1 = the idle count the submitter saw, r2 = whether the carrier saw the task.
 * Both 0 means the task waits on the queue while the carrier parks and nobody wakes anyone.
 */
@JCStressTest
@Description("GlobalQueue: an outside put, then a read of the idle count, racing a carrier publishing idle, then checking the queue")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both saw each other: the carrier takes its P back, the wake finds no P or a spare one")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the submitter saw the idle P and wakes a carrier")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the carrier saw the task and takes its P back")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: a task queued, a P idle, nobody told")
@State
public class GlobalPutVsIdleRecheck {
    private final GlobalQueue global = new GlobalQueue();
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
