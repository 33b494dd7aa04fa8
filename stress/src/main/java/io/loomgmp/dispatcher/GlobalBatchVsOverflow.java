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
 * A carrier whose ring is empty grabs ready work from the global queue ({@code RunLoop.grabReady},
 * step 4 of {@code findRunnable}, this very method) while the owner of another P, whose ring is
 * full, pushes one more task and moves the overflow (the older half of its ring plus the new task,
 * 129 tasks) to the global ready lane as one batch ({@code Scheduling.pushLocal}:
 * {@code global.putOverflow(overflow, overflow.length)}: one CAS links the batch, then the size
 * hint grows). Real {@code GlobalQueue} and {@code RunQueue}s, {@code procs} = 2.
 *
 * <p>Two ready tasks wait on the global queue beforehand. The grab's size follows the hint it read:
 * 2 tasks before the overflow is counted ({@code 2 / 2 + 1}); after, the two and then the batch,
 * whole, if it is linked by then (131). The hint lags the link (the CAS comes first), so a grab may
 * see the batch linked but not counted, and take less than it could: harmless.
 *
 * <p>Invariant: every task ends up exactly once: in the grabber's hand or ring, on the global
 * queue, or in the overflowing ring; none lost, none duplicated; the grabber's ring never
 * overflows; and once both are done the size hints are exact ({@code readySize()} and
 * {@code size()} equal the number of tasks left on the queue, so neither counter is left
 * negative, which {@code readySize()}'s clamp to 0 would otherwise hide). r1 = tasks grabbed,
 * r2 = tasks left on the global queue, r3 = violations (1 lost, 2 duplicated, 4 a size hint
 * wrong, 8 the grabber's ring overflowed). Any r3 other than 0 is forbidden.
 */
@JCStressTest
@Description("GlobalQueue/RunQueue: a global batch grab racing another P's ring overflowing into the ready lane")
@Outcome(id = "2, 129, 0", expect = ACCEPTABLE, desc = "the two waiting tasks: the batch not yet counted, or linked")
@Outcome(id = "131, 0, 0", expect = ACCEPTABLE, desc = "grabbed the two waiting tasks, then the whole batch")
@Outcome(id = "\\d+, \\d+, 0", expect = ACCEPTABLE, desc = "other interleavings, every task exactly once")
@Outcome(id = ".*", expect = FORBIDDEN, desc = "a task lost or duplicated, a size hint wrong, or the grabber's ring overflowed")
@State
public class GlobalBatchVsOverflow {
    private static final int PROCS = 2;
    private static final int WAITING = 2;
    private final StressTask[] tasks = StressTask.numbered(RunQueue.CAPACITY + 1 + WAITING);
    private final GlobalQueue global = new GlobalQueue();
    private final RunQueue overflowing = new RunQueue();
    private final RunQueue grabber = new RunQueue();
    private final StressTask.Tally tally = new StressTask.Tally(tasks.length);
    private Runnable first;
    private int grabbed;
    private boolean grabberOverflowed;

    public GlobalBatchVsOverflow() {
        for (int i = 0; i < RunQueue.CAPACITY; i++) {
            overflowing.pushOrOverflow(tasks[i]);
        }
        for (int i = 0; i < WAITING; i++) {
            global.putReady(tasks[RunQueue.CAPACITY + 1 + i]);
        }
    }

    @Actor
    public void owner() {
        Object[] overflow = overflowing.pushOrOverflow(tasks[RunQueue.CAPACITY]);
        if (overflow != null) {
            global.putOverflow(overflow, overflow.length);
        }
    }

    @Actor
    public void grabber() {
        int before = grabber.tailIndex();
        first = RunLoop.grabReady(global, grabber, PROCS);
        grabbed = first == null ? 0 : 1 + grabber.tailIndex() - before;
        grabberOverflowed = grabber.size() != grabbed - (first == null ? 0 : 1);
    }

    @Arbiter
    public void check(III_Result r) {
        int left;
        int sizes = 0;
        int readyHint = global.readySize();
        int sizeHint = global.size();
        tally.add(first);
        tally.drain(grabber);
        tally.drain(overflowing);
        left = tally.drain(global);
        if (readyHint != left || sizeHint != left || global.readySize() != 0 || global.size() != 0) {
            sizes = 4;
        }
        r.r1 = grabbed;
        r.r2 = left;
        r.r3 = tally.violations() | sizes | (grabberOverflowed ? 8 : 0);
    }
}
