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
 * Two submitters sample two tasks that share a group with one free slot left (the table has a
 * single group): exactly one claim gets the slot, and each task's run finds its own sample or
 * none. r1, r2 = each claim succeeded; r3 = the runs found the wrong sample or the table is not
 * as the claims say (0 when consistent).
 */
@JCStressTest
@Description("LatencySamples: two claims racing for the last free slot of a group")
@Outcome(id = {"1, 0, 0", "0, 1, 0"}, expect = ACCEPTABLE, desc = "one claim got the slot, the other task goes untimed")
@Outcome(id = "1, 1, .*", expect = FORBIDDEN, desc = "both claimed one slot")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "a free slot was left unclaimed")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "inconsistent table")
@State
public class LatencySampleClaimVsClaim {
    private final LatencySamples samples = new LatencySamples(1, 1);
    private final StressTask a = new StressTask(0);
    private final StressTask b = new StressTask(1);
    private LatencySamples.Sample claimedA;
    private LatencySamples.Sample claimedB;

    public LatencySampleClaimVsClaim() {
        for (int i = 0; i < LatencySamples.GROUP - 1; i++) {
            samples.claim(new StressTask(2 + i), 0, false); // fresh: not replaceable
        }
    }

    @Actor
    public void submitterA() {
        claimedA = samples.claim(a, 1, false);
    }

    @Actor
    public void submitterB() {
        claimedB = samples.claim(b, 1, false);
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = claimedA == null ? 0 : 1;
        r.r2 = claimedB == null ? 0 : 1;
        int held = samples.held();
        LatencySamples.Sample takenA = samples.take(a);
        LatencySamples.Sample takenB = samples.take(b);
        boolean consistent = takenA == claimedA && takenB == claimedB && held == LatencySamples.GROUP;
        r.r3 = consistent ? 0 : 1;
    }
}
