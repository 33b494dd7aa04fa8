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
 * The timer sleeper's protocol (see {@code Timers}): a thread adds a timer (published in its heap),
 * then reads the sleeper's deadline ({@code Timers.added}); the sleeper publishes its deadline
 * (a volatile write), then looks at the heaps again before parking
 * ({@code Parking.sleepForTimers}). {@code sleeperDeadline} stands for
 * {@code Parking.sleeperDeadline}, a volatile long. r1 = whether the adder saw the new deadline
 * (and so unparks the sleeper if its timer is earlier), r2 = whether the sleeper's second look saw
 * the timer. Both 0: the sleeper parks past a timer that nobody told it about.
 */
@JCStressTest
@Description("TimerHeap/Idle: adding an earlier timer racing the timer sleeper publishing its deadline")
@Outcome(id = "1, 1", expect = ACCEPTABLE, desc = "both saw each other")
@Outcome(id = "1, 0", expect = ACCEPTABLE, desc = "the adder saw the deadline: it unparks the sleeper")
@Outcome(id = "0, 1", expect = ACCEPTABLE, desc = "the sleeper saw the timer: it sleeps until then")
@Outcome(id = "0, 0", expect = FORBIDDEN, desc = "lost wake-up: the sleeper oversleeps the timer")
@State
public class TimerAddVsSleeperPublish {
    private static final long LATE = 1_000_000_000;
    private final TimerHeap heap = new TimerHeap();
    private final long now = System.nanoTime();
    private volatile long sleeperDeadline = Long.MAX_VALUE;

    @Actor
    public void adder(II_Result r) {
        heap.add(() -> { }, now + 1);
        r.r1 = sleeperDeadline != Long.MAX_VALUE ? 1 : 0;
    }

    @Actor
    public void sleeper(II_Result r) {
        sleeperDeadline = now + LATE;
        r.r2 = !heap.isEmpty() && heap.nextWhen() - (now + LATE) < 0 ? 1 : 0;
    }
}
