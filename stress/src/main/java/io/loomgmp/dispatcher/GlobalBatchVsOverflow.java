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
 * A carrier whose ring is empty grabs a batch of ready tasks from the global queue
 * ({@code RunLoop.grabReadyBatch}, step 4 of {@code findRunnable}) while the owner of another P,
 * whose ring is full, pushes one more task and moves the overflow (the older half of its ring
 * plus the new task, 129 tasks) to the global ready lane ({@code Scheduling.submit}:
 * {@code global.putOverflow(overflow, overflow.length)}: one CAS links the batch, then the size hint grows).
 * Real {@code GlobalQueue} and {@code RunQueue}s; the grab is {@code grabReadyBatch}'s body (a
 * private method of {@code RunLoop}, which needs a running scheduler), quoted except for its
 * counters, with {@code procs} = 2:
 * <pre>
 *     int ready = scheduling.global.readySize();
 *     if (ready == 0) return null;
 *     Runnable first = scheduling.global.pollReady();
 *     if (first == null) return null;
 *     int n = 1;
 *     for (int max = Math.min(ready / scheduling.procs + 1, GLOBAL_BATCH_MAX); n &lt; max; n++) {
 *         Runnable task = scheduling.global.pollReady();
 *         if (task == null) break;
 *         Runnable[] overflow = p.runQueue.pushOrOverflow(task); // the ring was empty: never overflows
 *     }
 * </pre>
 * Two ready tasks wait on the global queue beforehand. The batch size follows the size hint the
 * grabber read: 2 before the overflow is counted ({@code 2 / 2 + 1}), 66 after
 * ({@code 131 / 2 + 1}); the hint lags the link (the CAS comes first), so a grab may see the
 * overflow linked but not yet counted, and take less than it could: harmless.
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
@Outcome(id = "2, 129, 0", expect = ACCEPTABLE, desc = "grabbed before the overflow was counted: the two waiting tasks")
@Outcome(id = "66, 65, 0", expect = ACCEPTABLE, desc = "grabbed after the overflow was counted: half of the ready lane, plus one")
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
        Runnable[] overflow = overflowing.pushOrOverflow(tasks[RunQueue.CAPACITY]);
        if (overflow != null) {
            global.putOverflow(overflow, overflow.length);
        }
    }

    @Actor
    public void grabber() {
        int ready = global.readySize();
        if (ready == 0) {
            return;
        }
        first = global.pollReady();
        if (first == null) {
            return;
        }
        int n = 1;
        for (int max = Math.min(ready / PROCS + 1, RunLoop.GLOBAL_BATCH_MAX); n < max; n++) {
            Runnable task = global.pollReady();
            if (task == null) {
                break;
            }
            if (grabber.pushOrOverflow(task) != null) {
                grabberOverflowed = true;
            }
        }
        grabbed = n;
    }

    @Arbiter
    public void check(III_Result r) {
        int left = 0;
        int sizes = 0;
        int readyHint = global.readySize();
        int sizeHint = global.size();
        tally.add(first);
        tally.drain(grabber);
        tally.drain(overflowing);
        for (Runnable task; (task = global.poll()) != null; ) {
            tally.add(task);
            left++;
        }
        if (readyHint != left || sizeHint != left || global.readySize() != 0 || global.size() != 0) {
            sizes = 4;
        }
        r.r1 = grabbed;
        r.r2 = left;
        r.r3 = tally.violations() | sizes | (grabberOverflowed ? 8 : 0);
    }
}
