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
 * The owner samples a task and pushes it on its ring, as {@code Scheduling.submit} does, while a
 * thief steals from the ring and takes the sample of what it stole, as {@code RunLoop} does
 * before running it. Whoever runs the task must find its sample: the claim's CAS happens before
 * the ring publishes the task. r1 = the thief stole it, r2 = its run found the sample (the
 * owner's own run when the thief found nothing), r3 = samples left in the table.
 */
@JCStressTest
@Description("LatencySamples: a sample claimed before its task is pushed, taken by the thief that steals it")
@Outcome(id = "1, 1, 0", expect = ACCEPTABLE, desc = "the thief stole the task and found its sample")
@Outcome(id = "0, 1, 0", expect = ACCEPTABLE, desc = "the thief was too early; the owner's run found the sample")
@Outcome(id = ".*, 0, .*", expect = FORBIDDEN, desc = "a run missed its task's sample")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a sample was left behind")
@State
public class LatencySampleClaimVsSteal {
    private final LatencySamples samples = new LatencySamples(1, 1);
    private final RunQueue owner = new RunQueue();
    private final RunQueue thief = new RunQueue();
    private final StressTask task = new StressTask(0);
    private Runnable stolen;
    private LatencySamples.Sample stolenSample;

    @Actor
    public void owner() {
        samples.claim(task, 1, false);
        owner.pushOrOverflow(task);
    }

    @Actor
    public void thief() {
        Runnable taken = thief.stealHalfFrom(owner, true, 0);
        if (taken != null) {
            stolen = taken;
            stolenSample = samples.take(taken);
        }
    }

    @Arbiter
    public void check(III_Result r) {
        LatencySamples.Sample found = stolenSample;
        if (stolen == null) {
            Runnable own = owner.poll();
            found = own == null ? null : samples.take(own);
        }
        r.r1 = stolen == null ? 0 : 1;
        r.r2 = found != null && found.task() == task ? 1 : 0;
        r.r3 = samples.held();
    }
}
