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
 * A carrier takes a stale sample of the task it is about to run while a submitter claims the
 * same slot for another task (the only slot of the group it may replace): the old sample is taken
 * or replaced, never both and never kept, and the new task's sample is in the table exactly when
 * its claim says so. r1 = the run got the old sample, r2 = the claim succeeded, r3 = violations
 * (1: the old sample is left, 2: the new one does not match its claim).
 */
@JCStressTest
@Description("LatencySamples: a take racing a claim that replaces the stale sample")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "the run took the sample; the claim took the freed slot")
@Outcome(id = "1, 0, 0", expect = ACCEPTABLE, desc = "the claim saw the sample, the run took it first: the claim lost its CAS")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the claim replaced the stale sample first: the run goes untimed")
@Outcome(id = "0, 0, .*", expect = FORBIDDEN, desc = "neither removed the old sample")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "the table does not match the claim")
@State
public class LatencySampleTakeVsStaleClaim {
    private final LatencySamples samples = new LatencySamples(1, 1);
    private final StressTask old = new StressTask(0);
    private final StressTask next = new StressTask(1);
    private LatencySamples.Sample taken;
    private LatencySamples.Sample claimed;

    public LatencySampleTakeVsStaleClaim() {
        samples.claim(old, 0, false);
        for (int i = 1; i < LatencySamples.GROUP; i++) {
            samples.claim(new StressTask(1 + i), LatencySamples.STALE_NANOS + 1, false); // fresh to the claim below
        }
    }

    @Actor
    public void carrier() {
        taken = samples.take(old);
    }

    @Actor
    public void submitter() {
        claimed = samples.claim(next, LatencySamples.STALE_NANOS + 1, false);
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = taken != null && taken.task() == old ? 1 : 0;
        r.r2 = claimed == null ? 0 : 1;
        boolean oldLeft = samples.take(old) != null;
        boolean nextMatches = samples.take(next) == claimed;
        r.r3 = (oldLeft ? 1 : 0) + (nextMatches ? 0 : 2);
    }
}
