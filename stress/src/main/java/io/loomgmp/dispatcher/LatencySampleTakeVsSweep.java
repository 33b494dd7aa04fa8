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
 * A carrier about to run a task takes its (stale) sample while sysmon sweeps stale samples: the
 * run records it or the sweep drops it, and the sweep leaves the fresh samples of the group
 * alone. r1 = the run got the sample, r2 = the old sample is still there afterwards, r3 = fresh
 * samples left (of 3).
 */
@JCStressTest
@Description("LatencySamples: a take racing sysmon's sweep of a stale sample")
@Outcome(id = {"1, 0, 3", "0, 0, 3"}, expect = ACCEPTABLE, desc = "the run took the sample, or the sweep dropped it")
@Outcome(id = ".*, 1, .*", expect = FORBIDDEN, desc = "the stale sample survived a take and a sweep")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "the sweep dropped a fresh sample")
@State
public class LatencySampleTakeVsSweep {
    private final LatencySamples samples = new LatencySamples(1, 1);
    private final StressTask old = new StressTask(0);
    private final StressTask[] fresh = {new StressTask(1), new StressTask(2), new StressTask(3)};
    private LatencySamples.Sample taken;

    public LatencySampleTakeVsSweep() {
        samples.claim(old, 0, false);
        for (StressTask task : fresh) {
            samples.claim(task, LatencySamples.STALE_NANOS + 1, false);
        }
    }

    @Actor
    public void carrier() {
        taken = samples.take(old);
    }

    @Actor
    public void sysmon() {
        samples.sweep(2 * LatencySamples.STALE_NANOS, LatencySamples.STALE_NANOS, Integer.MAX_VALUE);
    }

    @Arbiter
    public void check(III_Result r) {
        r.r1 = taken != null && taken.task() == old ? 1 : 0;
        r.r2 = samples.take(old) != null ? 1 : 0;
        int left = 0;
        for (StressTask task : fresh) {
            left += samples.take(task) != null ? 1 : 0;
        }
        r.r3 = left;
    }
}
