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
 * A {@code Runnable} queued twice with one sample, run by two carriers at once: the sample is
 * taken, and so recorded, exactly once. r1, r2 = each run got the sample; r3 = samples left.
 */
@JCStressTest
@Description("LatencySamples: two runs of the same task taking its one sample")
@Outcome(id = {"1, 0, 0", "0, 1, 0"}, expect = ACCEPTABLE, desc = "one run recorded the sample")
@Outcome(id = "1, 1, .*", expect = FORBIDDEN, desc = "the sample was recorded twice")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "the sample was lost or left behind")
@State
public class LatencySampleTakeVsTake {
    private final LatencySamples samples = new LatencySamples(1, 1);
    private final StressTask task = new StressTask(0);
    private LatencySamples.Sample first;
    private LatencySamples.Sample second;

    public LatencySampleTakeVsTake() {
        samples.claim(task, 1, false);
    }

    @Actor
    public void carrier1() {
        first = samples.take(task);
    }

    @Actor
    public void carrier2() {
        second = samples.take(task);
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = first == null ? 0 : 1;
        r.r2 = second == null ? 0 : 1;
        r.r3 = samples.held();
    }
}
