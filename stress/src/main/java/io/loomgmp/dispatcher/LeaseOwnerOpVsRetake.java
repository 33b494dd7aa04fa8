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
 * The task on carrier m submits to its P's ring (an owner operation) while sysmon retakes the P
 * and a new carrier starts using it as owner: the ring is single-producer, so two owners at once
 * would lose or duplicate a task. r1 = m's submit went to the ring, r2 = sysmon took the P,
 * r3 = violations (tasks lost or duplicated).
 */
@JCStressTest
@Description("Lease: an owner operation in a task racing sysmon's retake and the new holder's use of the ring")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "submit while in the task; retake refused (busy)")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "submit, then retake")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "retake first; the submit was refused (goes to the global queue)")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "the submit was refused though nobody took the P")
@Outcome(id = ".*, .*, [1-9].*", expect = FORBIDDEN, desc = "two owners used the ring at once")
@State
public class LeaseOwnerOpVsRetake {
    private final StressTask[] tasks = StressTask.numbered(3);
    private final Carrier m = new Carrier(null, "m");
    private final Carrier next = new Carrier(null, "next");
    private final Processor p = new Processor(0);
    private final StressTask.Tally tally = new StressTask.Tally(tasks.length);
    private boolean submitted;
    private boolean retaken;

    public LeaseOwnerOpVsRetake() {
        p.acquire(m);
        p.enterTask(m);
    }

    @Actor
    public void taskOnM() {
        if (p.beginOwnerOp(m)) {
            p.runQueue.pushOrOverflow(tasks[0]);
            p.endOwnerOp(m);
            submitted = true;
        } else {
            tally.add(tasks[0]); // refused: Scheduling.submit puts it on the global queue
        }
    }

    @Actor
    public void sysmonThenNewHolder() {
        if (p.retake(m)) {
            retaken = true;
            p.release(); // handed over (under the scheduler lock in HandOff.handOff)
            p.acquire(next);
            p.runQueue.pushOrOverflow(tasks[1]);
            p.runQueue.pushOrOverflow(tasks[2]);
        } else {
            tally.add(tasks[1]);
            tally.add(tasks[2]);
        }
    }

    @Arbiter
    public void check(III_Result r) {
        tally.drain(p.runQueue);
        r.r1 = submitted ? 1 : 0;
        r.r2 = retaken ? 1 : 0;
        r.r3 = tally.violations();
    }
}
