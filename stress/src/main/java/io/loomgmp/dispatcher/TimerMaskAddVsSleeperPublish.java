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
 * {@link TimerAddVsSleeperPublish} through the timer mask: the sleeper's second look is the real
 * {@code Timers.delay}, which reads only the heaps of the Ps whose bit is set in the timer mask
 * ({@code Timers.withTimers}, Go's {@code timerpMask}), and the adder is the real
 * {@code TimerHeap.add} of a P of a real (inert, never started) {@code Scheduling}, which sets its
 * P's bit under the heap's lock after writing the heap's count and earliest deadline.
 *
 * <h2>Invariant</h2>
 * As in {@link TimerAddVsSleeperPublish}: the adder adds, then reads the sleeper's deadline; the
 * sleeper publishes its deadline (volatile), then looks at the heaps. Forbidden: {@code 0, 0}, the
 * sleeper's look skipping P1 (its bit read clear) while the adder missed the deadline. The bit's
 * set is a volatile RMW after the heap's volatile writes and before the adder's read, and the
 * sleeper's read of the bit a volatile read after its write: a look that reads the bit clear
 * precedes the set in the synchronization order, so the adder's later read sees the deadline; a
 * look that reads it set sees the count and the deadline written before it. r1 = the adder saw the
 * deadline, r2 = the sleeper's look saw the timer.
 */
@JCStressTest
@Description("Timers: adding an earlier timer (its P's bit in the timer mask) racing the timer sleeper publishing its deadline")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both saw each other")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the adder saw the deadline: it unparks the sleeper")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the sleeper saw the timer: it sleeps until then")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: the look skipped the P whose bit it read clear")
@State
public class TimerMaskAddVsSleeperPublish {
    private static final long LATE = 1_000_000_000;
    private final Scheduling s = new Scheduling(SchedulerConfig.inert("timer-mask-jcstress", 2, 2)); // never started
    private final long now = System.nanoTime();
    private volatile long sleeperDeadline = Long.MAX_VALUE;

    @Actor
    public void adder(II_Result r) {
        s.allp[1].timers.add(() -> { }, now + 1);
        r.r1 = sleeperDeadline != Long.MAX_VALUE ? 1 : 0;
    }

    @Actor
    public void sleeper(II_Result r) {
        sleeperDeadline = now + LATE;
        long delay = s.timers.delay(now);
        r.r2 = delay >= 0 && delay < LATE ? 1 : 0;
    }
}
