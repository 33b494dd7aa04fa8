package io.loomgmp.dispatcher;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.III_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The owner pushes and pops while one thief steals half of the ring: every task ends up exactly
 * once with the owner, the thief, or still queued. r1 = the task the owner popped (-1: none),
 * r2 = tasks the thief took, r3 = violations (1 lost, 2 duplicated).
 */
@JCStressTest
@Description("RunQueue: owner push/pop racing one thief's steal-half")
@Outcome(id = "-?\\d+, \\d+, 0", expect = ACCEPTABLE, desc = "every task exactly once")
@Outcome(id = ".*, .*, 1", expect = FORBIDDEN, desc = "a task was lost")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a task was duplicated")
@State
public class RunQueuePushPopVsSteal {
    private final StressTask[] tasks = StressTask.numbered(4);
    private final RunQueue owner = new RunQueue();
    private final RunQueue thief = new RunQueue();
    private final StressTask.Tally tally = new StressTask.Tally(tasks.length);
    private Runnable popped;
    private int stolen;

    public RunQueuePushPopVsSteal() {
        owner.pushOrOverflow(tasks[0]);
        owner.pushOrOverflow(tasks[1]);
    }

    @Actor
    public void owner() {
        owner.pushOrOverflow(tasks[2]);
        popped = owner.poll();
        owner.pushOrOverflow(tasks[3]);
    }

    @Actor
    public void thief() {
        Runnable task = thief.stealHalfFrom(owner, false, 0);
        stolen = task == null ? 0 : 1 + thief.size();
        tally.add(task);
    }

    @Arbiter
    public void check(III_Result r) {
        tally.add(popped);
        tally.drain(owner);
        tally.drain(thief);
        r.r1 = popped == null ? -1 : ((StressTask) popped).id();
        r.r2 = stolen;
        r.r3 = tally.violations();
    }
}
