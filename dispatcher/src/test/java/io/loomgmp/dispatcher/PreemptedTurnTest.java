package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.LongAdder;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Fairness both ways under saturation (the model in docs/concepts.md): outside work keeps the
 * ready lane full, as a server past its capacity does, while a few long tasks need many slices
 * each. Long tasks are preempted by the give-way rule and queue on the yielded lane; before
 * {@link RunLoop#PREEMPTED_TURN_NANOS} they ran only when the ready lane ran dry or on the
 * fairness tick, so they got a few percent of the Ps and, in a real server, never finished
 * while the load ran. Now each P alternates: the long class gets about two thirds of the time
 * both wait, and the short class about a third.
 *
 * <p>Shares, not times: both classes' work is measured in the same unit (time spent inside
 * their tasks), so a loaded machine slows both alike and the shares hold; the one time bound is
 * generous and only turns a starvation into a failure instead of a hang.
 */
class PreemptedTurnTest {
    private static final Duration BOUND = Duration.ofSeconds(60);
    /** Short tasks in flight at once, fed from a platform thread: the ready lane never runs dry. */
    private static final int SHORT_IN_FLIGHT = 64;
    private static final long SHORT_NANOS = 300_000;
    private static final int LONG_TASKS = 4;
    private static final long LONG_NANOS = 200_000_000;
    /**
     * Design ({@link RunLoop#PREEMPTED_WEIGHT}): two thirds for the long class, a third for short
     * work. Measured 60-69 % (beside a CPU hog too); with half each (the rule before the weight) 52-53 %, and before the
     * turn rule about 5 % (one slice per fairness tick, 61 short tasks of 0.3 ms).
     */
    private static final double MIN_LONG_SHARE = 0.56;
    private static final double MIN_SHORT_SHARE = 0.20;

    @Test
    void longTasksGetTwoThirdsAndShortWorkAThirdWhileBothWait() throws Exception {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("turns").build()) {
            AtomicBoolean stop = new AtomicBoolean();
            Semaphore slots = new Semaphore(SHORT_IN_FLIGHT);
            LongAdder shortNanos = new LongAdder();
            LongAdder longNanos = new LongAdder();
            Runnable shortTask = () -> {
                long start = System.nanoTime();
                spin(start, SHORT_NANOS);
                shortNanos.add(System.nanoTime() - start);
                slots.release();
            };
            Thread feeder = Thread.ofPlatform().name("turns-feeder").start(() -> {
                try {
                    while (!stop.get()) {
                        if (slots.tryAcquire(10, TimeUnit.MILLISECONDS)) {
                            s.execute(shortTask); // from a platform thread: the ready lane
                        }
                    }
                } catch (InterruptedException e) {
                    Thread.currentThread().interrupt();
                }
            });
            try {
                Thread.sleep(200); // the ready lane is full and both Ps run short work
                CountDownLatch longDone = new CountDownLatch(LONG_TASKS);
                long deadline = System.nanoTime() + BOUND.toNanos();
                long shortBefore = shortNanos.sum();
                for (int i = 0; i < LONG_TASKS; i++) {
                    s.execute(new LongTask(s, longNanos, longDone, deadline));
                }
                Probe.await(longDone, BOUND, s, LONG_TASKS + " long tasks beside a full ready lane");
                double longShare = (double) longNanos.sum()
                        / (longNanos.sum() + shortNanos.sum() - shortBefore);
                String shares = String.format("the long tasks had %.0f%% of the time in tasks while both waited, short work %.0f%%%n",
                        100 * longShare, 100 * (1 - longShare));
                System.out.print(shares);
                assertTrue(longShare >= MIN_LONG_SHARE, "the long tasks had less than their share: " + shares + s.snapshot());
                assertTrue(1 - longShare >= MIN_SHORT_SHARE, "short work had less than its share: " + shares + s.snapshot());
            } finally {
                stop.set(true);
                feeder.join();
            }
        }
    }

    private static void spin(long start, long nanos) {
        while (System.nanoTime() - start < nanos) {
            Thread.onSpinWait();
        }
    }

    /**
     * Needs {@link #LONG_NANOS} of running in all, and polls for preemption as a virtual thread
     * at a poll does: asked, it yields to the yielded lane and continues at its next turn.
     */
    private static final class LongTask implements Runnable {
        private final GmpScheduler scheduler;
        private final LongAdder ran;
        private final CountDownLatch done;
        private final long deadline;
        private long left = LONG_NANOS;

        LongTask(GmpScheduler scheduler, LongAdder ran, CountDownLatch done, long deadline) {
            this.scheduler = scheduler;
            this.ran = ran;
            this.done = done;
            this.deadline = deadline;
        }

        @Override
        public void run() {
            long start = System.nanoTime();
            boolean asked = Probe.computeUntilAskedToYield(() -> System.nanoTime() - start >= left, deadline);
            long slice = System.nanoTime() - start;
            ran.add(slice);
            left -= slice;
            if (asked && left > 0) {
                scheduler.submit(this, Placement.YIELD);
            } else if (left <= 0) {
                done.countDown();
            }
        }
    }
}
