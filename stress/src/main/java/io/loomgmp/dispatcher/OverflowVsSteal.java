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
 * The ring is full; the owner pushes one more, so half of the ring plus the new task moves out as
 * an overflow batch, while a thief steals half. r1 = size of the overflow batch (0: the push fit
 * because the thief made room first), r2 = tasks the thief took, r3 = violations.
 */
@JCStressTest
@Description("RunQueue: overflow of a full ring racing a steal")
@Outcome(id = "129, 64, 0", expect = ACCEPTABLE, desc = "overflow first; the thief stole half of what was left")
@Outcome(id = "0, 128, 0", expect = ACCEPTABLE, desc = "the thief stole first, making room for the push")
@Outcome(id = "\\d+, \\d+, 0", expect = ACCEPTABLE, desc = "other interleavings, every task exactly once")
@Outcome(id = ".*, .*, 1", expect = FORBIDDEN, desc = "a task was lost")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a task was duplicated")
@State
public class OverflowVsSteal {
    private final StressTask[] tasks = StressTask.numbered(RunQueue.CAPACITY + 1);
    private final RunQueue owner = new RunQueue();
    private final RunQueue thief = new RunQueue();
    private final StressTask.Tally tally = new StressTask.Tally(tasks.length);
    private Object[] overflow;
    private Runnable taken;

    public OverflowVsSteal() {
        for (int i = 0; i < RunQueue.CAPACITY; i++) {
            owner.pushOrOverflow(tasks[i]);
        }
    }

    @Actor
    public void owner() {
        overflow = owner.pushOrOverflow(tasks[RunQueue.CAPACITY]);
    }

    @Actor
    public void thief() {
        taken = thief.stealHalfFrom(owner, false, 0);
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = overflow == null ? 0 : overflow.length;
        r.r2 = taken == null ? 0 : 1 + thief.size();
        tally.addAll(overflow);
        tally.add(taken);
        tally.drain(owner);
        tally.drain(thief);
        r.r3 = tally.violations();
    }
}
