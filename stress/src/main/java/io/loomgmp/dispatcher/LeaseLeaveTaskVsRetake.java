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
 * A carrier's task returns (it tries to keep its P) while sysmon, seeing it blocked, tries to
 * retake the P: exactly one of them must get it. r1 = the carrier kept the P, r2 = sysmon took it.
 */
@JCStressTest
@Description("Lease: task return (leaveTask) racing sysmon's retake: the P has exactly one holder")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the carrier kept its P")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "sysmon took the P; the carrier must find another")
@Outcome(id = "1, 1", expect = FORBIDDEN, desc = "two holders")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "nobody holds the P")
@State
public class LeaseLeaveTaskVsRetake {
    private final Carrier m = new Carrier(null, "m");
    private final Processor p = new Processor(0);

    public LeaseLeaveTaskVsRetake() {
        p.acquire(m);
        p.enterTask(m);
    }

    @Actor
    public void carrier(II_Result r) {
        r.r1 = p.leaveTask(m) ? 1 : 0;
    }

    @Actor
    public void sysmon(II_Result r) {
        r.r2 = p.retake(m) ? 1 : 0;
    }
}
