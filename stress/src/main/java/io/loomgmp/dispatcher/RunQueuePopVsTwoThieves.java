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
 * The owner pushes and pops while two thieves steal at once. r1, r2 = tasks each thief took,
 * r3 = violations (1 lost, 2 duplicated).
 */
@JCStressTest
@Description("RunQueue: owner push/pop racing two thieves")
@Outcome(id = "\\d+, \\d+, 0", expect = ACCEPTABLE, desc = "every task exactly once")
@Outcome(id = ".*, .*, 1", expect = FORBIDDEN, desc = "a task was lost")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a task was duplicated")
@State
public class RunQueuePopVsTwoThieves {
    private final StressTask[] tasks = StressTask.numbered(6);
    private final RunQueue owner = new RunQueue();
    private final RunQueue thief1 = new RunQueue();
    private final RunQueue thief2 = new RunQueue();
    private final StressTask.Tally tally = new StressTask.Tally(tasks.length);
    private Runnable popped;
    private int stolen1;
    private int stolen2;
    private Runnable taken1;
    private Runnable taken2;

    public RunQueuePopVsTwoThieves() {
        for (int i = 0; i < 4; i++) {
            owner.pushOrOverflow(tasks[i]);
        }
    }

    @Actor
    public void owner() {
        owner.pushOrOverflow(tasks[4]);
        popped = owner.poll();
        owner.pushOrOverflow(tasks[5]);
    }

    @Actor
    public void thief1() {
        taken1 = thief1.stealHalfFrom(owner, false, 0);
        stolen1 = taken1 == null ? 0 : 1 + thief1.size();
    }

    @Actor
    public void thief2() {
        taken2 = thief2.stealHalfFrom(owner, false, 0);
        stolen2 = taken2 == null ? 0 : 1 + thief2.size();
    }

    @Arbiter
    public void check(III_Result r) {
        tally.add(popped);
        tally.add(taken1);
        tally.add(taken2);
        tally.drain(owner);
        tally.drain(thief1);
        tally.drain(thief2);
        r.r1 = stolen1;
        r.r2 = stolen2;
        r.r3 = tally.violations();
    }
}
