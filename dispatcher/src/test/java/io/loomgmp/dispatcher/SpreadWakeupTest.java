package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.LoomSupport;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The JDK's spin heuristic on GMP ({@code Scheduling.hasQueuedWorkBeforeSpinning}): a task that
 * hands off into {@code runnext} and is about to spin-wait for the answer gets its partner run on
 * another core while one is free, and keeps runnext's locality when none is.
 */
class SpreadWakeupTest {

    /** What the task saw: the heuristic's answer, whether the partner ran while it waited, and where. */
    private record Seen(boolean queuedWork, boolean partnerRanWhileWaiting, String partnerCarrier, String waiterCarrier) {
    }

    private static Seen handOffThenAsk(GmpScheduler s) throws InterruptedException {
        AtomicReference<Seen> seen = new AtomicReference<>();
        CountDownLatch done = new CountDownLatch(1);
        s.execute(() -> {
            CountDownLatch partnerRan = new CountDownLatch(1);
            AtomicReference<String> partnerCarrier = new AtomicReference<>();
            s.submit(() -> {
                partnerCarrier.set(Thread.currentThread().getName());
                partnerRan.countDown();
            }, Placement.RUNNEXT);
            boolean queuedWork = LoomSupport.hasQueuedWork(Thread.currentThread());
            // Spin as a SynchronousQueue taker does, holding this carrier (a carrier blocked instead
            // would have its P handed to another by sysmon): only another P can run the partner now.
            long deadline = System.nanoTime() + (queuedWork ? TimeUnit.MILLISECONDS.toNanos(100) : Probe.BOUND.toNanos());
            while (partnerRan.getCount() > 0 && System.nanoTime() - deadline < 0) {
                Thread.onSpinWait();
            }
            boolean ran = partnerRan.getCount() == 0;
            seen.set(new Seen(queuedWork, ran, partnerCarrier.get(), Thread.currentThread().getName()));
            done.countDown();
        });
        Probe.await(done, Probe.BOUND, s, "the hand-off task");
        return seen.get();
    }

    @Test
    void whileAPIsIdleThePartnerRunsOnAnotherCoreAndTheWaiterSpins() throws Exception {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("spread").build()) {
            Seen seen = handOffThenAsk(s);
            assertFalse(seen.queuedWork(), "told to spin: " + seen);
            assertTrue(seen.partnerRanWhileWaiting(), "the partner ran while its waker held its carrier: " + seen);
            assertNotEquals(seen.waiterCarrier(), seen.partnerCarrier(), seen.toString());
            assertEquals(1, s.snapshot().get(SchedulerMetric.SPREAD_WAKEUPS), s.snapshot().toString());
        }
    }

    @Test
    void withNoOtherPThePartnerWaitsInRunnextAndTheWaiterIsToldToPark() throws Exception {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("local").build()) {
            Seen seen = handOffThenAsk(s);
            assertTrue(seen.queuedWork(), seen.toString());
            assertFalse(seen.partnerRanWhileWaiting(), "only its own carrier can run it, after it: " + seen);
            assertEquals(0, s.snapshot().get(SchedulerMetric.SPREAD_WAKEUPS), s.snapshot().toString());
        }
    }

    @Test
    void otherQueuedWorkKeepsTheAnswerTrue() throws Exception {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("busy").build()) {
            AtomicBoolean answer = new AtomicBoolean();
            CountDownLatch done = new CountDownLatch(1);
            s.execute(() -> {
                s.submit(() -> { }, Placement.LOCAL);   // work of its own in the ring
                s.submit(() -> { }, Placement.RUNNEXT); // and a hand-off
                answer.set(LoomSupport.hasQueuedWork(Thread.currentThread()));
                done.countDown();
            });
            Probe.await(done, Probe.BOUND, s, "the task");
            assertTrue(answer.get(), "a ring with work: park, as ForkJoinPool's heuristic says");
        }
    }
}
