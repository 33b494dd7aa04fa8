package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Scheduling latency on real carriers: waits of a known length show, at least that long, under
 * the source the task waited in; sampling 1 times every task and 0 none; a task whose sample is
 * lost still runs. Every bound is a lower one, or generous: the machine may be loaded.
 */
class LatencyTotalsTest {
    /** How long the tests keep work waiting: far above any scheduling noise, so a lower bound holds. */
    private static final long WAIT_NANOS = Duration.ofMillis(200).toNanos();

    @Test
    void workFromAPlatformThreadWaitingForBusyPsShowsUnderGlobal() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("lat-global").latencySample(1).build()) {
            Blockers blockers = Blockers.holdEveryP(s, 2);
            CountDownLatch ran = new CountDownLatch(1);
            try {
                s.execute(ran::countDown); // from the test's platform thread: the global queue
                sleepAtLeast(WAIT_NANOS);
            } finally {
                blockers.release();
            }
            Probe.await(ran, Probe.BOUND, s, "the task behind the blockers");
            long waitedAtLeast = WAIT_NANOS;
            Probe.awaitTrue(() -> s.snapshot().latency().all().count() == 3, Probe.BOUND, s,
                    "three samples: the two blockers and the task");
            LatencyTotals latency = s.snapshot().latency();
            LatencyHistogram global = latency.source("global");
            assertEquals(3, global.count(), "all three came from outside, through the global queue\n" + s.snapshot());
            assertTrue(global.maxNanos() >= waitedAtLeast, "waited at least " + waitedAtLeast + " ns: " + global);
            assertTrue(global.percentileNanos(0.99) >= waitedAtLeast, global.toString());
            assertEquals(global, latency.all(), "no other source");
            String line = s.snapshot().schedtraceLine(1);
            assertTrue(line.matches(".* latp50=\\S+ latp99=\\d+(\\.\\d)?(ms|s)"), "p99 of 200 ms or more: " + line);
        }
    }

    @Test
    void aRunnextHandOffShowsUnderRunnext() {
        // One P (no thief), and a long slice: the hand-off waits for its submitter, in runnext.
        try (GmpScheduler s = GmpScheduler.builder().procs(1).timeSlice(Duration.ofSeconds(60)).name("lat-runnext")
                .latencySample(1).build()) {
            CountDownLatch ran = new CountDownLatch(1);
            s.execute(() -> {
                s.submit(ran::countDown, Placement.RUNNEXT);
                Probe.spin(Duration.ofNanos(WAIT_NANOS));
            });
            Probe.await(ran, Probe.BOUND, s, "the hand-off");
            Probe.awaitTrue(() -> s.snapshot().latency().all().count() == 2, Probe.BOUND, s, "both tasks timed");
            LatencyTotals latency = s.snapshot().latency();
            assertEquals(1, latency.source("runnext").count(), latency.toString());
            assertTrue(latency.source("runnext").maxNanos() >= WAIT_NANOS, latency.source("runnext").toString());
            assertEquals(1, latency.source("global").count(), "the submitter came from outside\n" + s.snapshot());
        }
    }

    @Test
    void aTimersTaskCountsFromTheDueTimeUnderTimer() {
        // One P kept busy past the timer's due time: the timer fires late, and its task's wait
        // counts from when it was due.
        try (GmpScheduler s = GmpScheduler.builder().procs(1).timeSlice(Duration.ofSeconds(60)).name("lat-timer")
                .latencySample(1).build()) {
            CountDownLatch ran = new CountDownLatch(1);
            long dueAfter = Duration.ofMillis(5).toNanos();
            s.execute(() -> {
                s.schedule(() -> s.submit(ran::countDown, Placement.RUNNEXT), dueAfter); // this P's heap
                Probe.spin(Duration.ofNanos(WAIT_NANOS));
            });
            Probe.await(ran, Probe.BOUND, s, "the timer's task");
            Probe.awaitTrue(() -> s.snapshot().latency().source("timer").count() == 1, Probe.BOUND, s, "the timer's task timed");
            LatencyHistogram timer = s.snapshot().latency().source("timer");
            assertTrue(timer.maxNanos() >= WAIT_NANOS - dueAfter, "late by the rest of the busy task: " + timer);
            assertEquals(0, s.snapshot().latency().source("runnext").count(), "a timer's task is not counted twice");
            assertEquals(1, s.snapshot().timersFired());
        }
    }

    @Test
    void samplingOneTimesEveryTask() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("lat-every").latencySample(1).build()) {
            assertEquals(1, s.latencySample());
            int chain = 200;
            CountDownLatch chained = new CountDownLatch(1);
            s.execute(() -> link(s, chain, chained));
            Probe.await(chained, Probe.BOUND, s, "the runnext chain");
            int outside = 20;
            for (int i = 0; i < outside; i++) {
                CountDownLatch ran = new CountDownLatch(1);
                s.execute(ran::countDown);
                Probe.await(ran, Probe.BOUND, s, "task " + i);
            }
            long tasks = chain + 1 + outside;
            Probe.awaitTrue(() -> s.snapshot().tasksRun() == tasks, Probe.BOUND, s, "every task run");
            assertEquals(tasks, s.snapshot().latency().all().count(), s.snapshot().toString());
        }
    }

    @Test
    void samplingZeroTimesNothing() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("lat-off").latencySample(0).build()) {
            CountDownLatch chained = new CountDownLatch(1);
            s.execute(() -> link(s, 100, chained));
            Probe.await(chained, Probe.BOUND, s, "the runnext chain");
            SchedulerSnapshot snapshot = s.snapshot();
            assertEquals(0, snapshot.latency().all().count());
            assertEquals(0, snapshot.latency().sampleEvery());
            assertTrue(snapshot.schedtraceLine(1).endsWith(" latp50=- latp99=-"), snapshot.schedtraceLine(1));
            assertTrue(snapshot.toString().contains("latency: not sampled"), snapshot.toString());
        }
    }

    @Test
    void theDefaultSamplesAboutOneTaskInEight() {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("lat-default").build()) {
            assertEquals(8, s.latencySample());
            int chain = 8_000;
            CountDownLatch chained = new CountDownLatch(1);
            s.execute(() -> link(s, chain, chained));
            Probe.await(chained, Probe.BOUND, s, "the runnext chain");
            long samples = s.snapshot().latency().all().count();
            assertTrue(samples > chain / 16 && samples < chain / 4, "about 1,000 of 8,000: " + samples);
        }
    }

    /**
     * A sample is the queued entry itself, so it goes wherever its task goes: with every task
     * timed, every run is recorded once, whether the task ran from runnext, its P's ring, after a
     * steal, from the global queue after a full ring overflowed, or after its P was retired; and
     * the same Runnable queued twice is recorded twice, once per run.
     */
    @Test
    void everySampledTaskIsRecordedOnceWhereverItRan() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("lat-everywhere").latencySample(1).build()) {
            int burst = 3 * RunQueue.CAPACITY; // overflows, and the other P steals
            CountDownLatch done = new CountDownLatch(burst + 2);
            s.execute(() -> {
                for (int i = 0; i < burst; i++) {
                    s.execute(done::countDown);
                }
                Runnable twice = done::countDown;
                s.submit(twice, Placement.RUNNEXT);
                s.execute(twice);
            });
            s.setProcs(1); // retires P1 while the burst runs: its queue moves to the global queue
            Probe.await(done, Probe.BOUND, s, "the burst");
            Probe.awaitTrue(() -> s.snapshot().latency().all().count() == s.snapshot().tasksRun(), Probe.BOUND, s,
                    "every run recorded");
            SchedulerSnapshot snap = s.snapshot();
            assertEquals(burst + 3, snap.tasksRun(), snap.toString());
            assertTrue(snap.overflows() >= 1, "the ring overflowed\n" + snap);
        }
    }

    /** Hands the next link to runnext until {@code left} reaches 0. */
    private static void link(GmpScheduler s, int left, CountDownLatch done) {
        if (left == 0) {
            done.countDown();
        } else {
            s.submit(() -> link(s, left - 1, done), Placement.RUNNEXT);
        }
    }

    private static void sleepAtLeast(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0; left = end - System.nanoTime()) {
            try {
                Thread.sleep(Duration.ofNanos(left));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                throw new AssertionError(e);
            }
        }
    }

    /**
     * Tasks that hold every P by spinning (not parking: a parked carrier may have its P handed to
     * another carrier, which would run the waiting work under the test) until released, or for
     * {@link #Probe.BOUND} at most, so that a failing test cannot leave them spinning.
     */
    private static final class Blockers {
        private final AtomicBoolean released = new AtomicBoolean();
        private final CountDownLatch ended;
        private final GmpScheduler scheduler;

        private Blockers(GmpScheduler scheduler, int count) {
            this.scheduler = scheduler;
            this.ended = new CountDownLatch(count);
        }

        /**
         * One blocker at a time, each running before the next is submitted: each is then taken
         * alone from the global queue by an idle P (two at once could go to one P as a batch,
         * and the second be stolen from there).
         */
        static Blockers holdEveryP(GmpScheduler s, int procs) {
            Blockers blockers = new Blockers(s, procs);
            AtomicInteger running = new AtomicInteger();
            long deadline = System.nanoTime() + Probe.BOUND.toNanos();
            BooleanSupplier over = () -> blockers.released.get() || System.nanoTime() - deadline > 0;
            for (int i = 0; i < procs; i++) {
                s.execute(() -> {
                    running.incrementAndGet();
                    while (!over.getAsBoolean()) {
                        Thread.onSpinWait();
                    }
                    blockers.ended.countDown();
                });
                int started = i + 1;
                Probe.awaitTrue(() -> running.get() == started, Probe.BOUND, s, "blocker " + started + " running");
            }
            return blockers;
        }

        void release() {
            released.set(true);
            Probe.await(ended, Probe.BOUND, scheduler, "the blockers to end");
        }
    }
}
