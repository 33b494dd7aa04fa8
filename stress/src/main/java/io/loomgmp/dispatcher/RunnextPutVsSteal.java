package io.loomgmp.dispatcher;

import org.openjdk.jcstress.annotations.Actor;
import org.openjdk.jcstress.annotations.Arbiter;
import org.openjdk.jcstress.annotations.Description;
import org.openjdk.jcstress.annotations.JCStressTest;
import org.openjdk.jcstress.annotations.Outcome;
import org.openjdk.jcstress.annotations.State;
import org.openjdk.jcstress.infra.results.II_Result;

import static org.openjdk.jcstress.annotations.Expect.ACCEPTABLE;
import static org.openjdk.jcstress.annotations.Expect.FORBIDDEN;

/**
 * The owner puts a task in runnext, displacing the occupant to the ring's tail, while a thief on
 * its last pass (runnext allowed) steals. r1 = the task the thief took (-1: none), r2 =
 * violations (1 lost, 2 duplicated).
 */
@JCStressTest
@Description("RunQueue: runnext put (with displacement) racing a steal that may take runnext")
@Outcome(id = "-1, 0", expect = ACCEPTABLE, desc = "thief found nothing")
@Outcome(id = "0, 0", expect = ACCEPTABLE, desc = "thief took the old task: from runnext before it was displaced, or from the ring after")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "thief took the new runnext")
@Outcome(id = ".*, 1", expect = FORBIDDEN, desc = "a task was lost")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a task was duplicated")
@State
public class RunnextPutVsSteal {
    private final StressTask[] tasks = StressTask.numbered(2);
    private final RunQueue owner = new RunQueue();
    private final RunQueue thief = new RunQueue();
    private final StressTask.Tally tally = new StressTask.Tally(tasks.length);
    private Runnable taken;

    public RunnextPutVsSteal() {
        owner.pushNext(tasks[0]);
    }

    @Actor
    public void owner() {
        Runnable displaced = owner.pushNext(tasks[1]);
        if (displaced != null) {
            owner.pushOrOverflow(displaced);
        }
    }

    @Actor
    public void thief() {
        taken = thief.stealHalfFrom(owner, true, 0);
    }

    @Arbiter
    public void check(II_Result r) {
        tally.add(taken);
        tally.drain(owner);
        tally.drain(thief);
        r.r1 = taken == null ? -1 : ((StressTask) taken).id();
        r.r2 = tally.violations();
    }
}
