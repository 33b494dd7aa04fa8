package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.LoomSupport;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Work from outside that waits while every P runs a long task, on the global queue or in a P's
 * ring where a batch from the global queue moved it: sysmon asks a long task to give way once the
 * work has waited {@link Retake#GIVE_WAY_AFTER_NANOS}, long before the time slice ends, and not
 * before (a task about to end may free the P by itself).
 */
class GiveWayTest {


    @Test
    void outsideWorkBehindALongTaskWaitsAMillisecondThenTheTaskGivesWay() {
        // The only P runs a task that polls for preemption, as a virtual thread at a poll does.
        // The time slice is a minute, so only the give-way rule can free the P.
        try (GmpScheduler s = GmpScheduler.builder().procs(1).timeSlice(Duration.ofSeconds(60)).name("giveway").build()) {
            CountDownLatch ran = new CountDownLatch(1);
            AtomicLong submittedAt = new AtomicLong();
            AtomicLong gaveWayAt = new AtomicLong();
            long until = System.nanoTime() + Probe.BOUND.toNanos();
            Runnable[] hog = new Runnable[1];
            hog[0] = () -> {
                if (Probe.computeUntilAskedToYield(() -> ran.getCount() == 0, until)) {
                    gaveWayAt.compareAndSet(0, System.nanoTime());
                    s.submit(hog[0], Placement.YIELD);
                }
            };
            CountDownLatch started = new CountDownLatch(1);
            s.execute(() -> {
                started.countDown();
                hog[0].run();
            });
            Probe.await(started, Probe.BOUND, s, "the long task");
            // Long after the P last took ready work (the long task itself), so that only the
            // work's own wait can hold the give-way back.
            sleep(50);
            submittedAt.set(System.nanoTime());
            s.execute(ran::countDown); // from a platform thread: the global ready lane
            Probe.await(ran, Probe.BOUND, s, "the outside work beside the long task");
            long waited = gaveWayAt.get() - submittedAt.get();
            assertTrue(gaveWayAt.get() != 0, "the long task never gave way\n" + s.snapshot());
            // A lower bound only: sysmon may be late on a loaded machine, never early.
            assertTrue(waited >= Retake.GIVE_WAY_AFTER_NANOS,
                    "the long task gave way " + waited / 1_000 + " us after the work came, before it waited 1 ms\n" + s.snapshot());
        }
    }

    @Test
    void outsideWorkThatABatchMovedBehindALongTaskWaitsAMillisecondThenTheTaskGivesWay() {
        // One P and a time slice of a minute again. A blocker holds the P while a long task and
        // three short ones queue on the ready lane from this platform thread; once the blocker
        // ends, the P takes all four in one batch: it runs the long task and keeps the short
        // ones in its ring, where no other P could take them. The ready lane is then empty:
        // only the batch's wait can make the long task give way.
        try (GmpScheduler s = GmpScheduler.builder().procs(1).timeSlice(Duration.ofSeconds(60)).name("giveway-batch").build()) {
            int shortTasks = 3;
            CountDownLatch ran = new CountDownLatch(shortTasks);
            AtomicLong longStartedAt = new AtomicLong();
            AtomicLong gaveWayAt = new AtomicLong();
            AtomicInteger shortRanFirst = new AtomicInteger();
            long until = System.nanoTime() + Probe.BOUND.toNanos();
            Runnable[] longTask = new Runnable[1];
            longTask[0] = () -> {
                longStartedAt.compareAndSet(0, System.nanoTime());
                if (Probe.computeUntilAskedToYield(() -> ran.getCount() == 0, until)) {
                    gaveWayAt.compareAndSet(0, System.nanoTime());
                    s.submit(longTask[0], Placement.YIELD);
                }
            };
            AtomicBoolean release = new AtomicBoolean();
            CountDownLatch blocking = new CountDownLatch(1);
            s.execute(() -> { // spins without a poll: give-way requests to it go unanswered
                blocking.countDown();
                while (!release.get() && System.nanoTime() - until < 0) {
                    Thread.onSpinWait();
                }
            });
            Probe.await(blocking, Probe.BOUND, s, "the blocker");
            s.execute(longTask[0]);
            for (int i = 0; i < shortTasks; i++) {
                s.execute(() -> {
                    if (longStartedAt.get() == 0) {
                        shortRanFirst.incrementAndGet();
                    }
                    ran.countDown();
                });
            }
            release.set(true);
            Probe.await(ran, Probe.BOUND, s, "the short tasks batched behind the long one");
            assertEquals(0, shortRanFirst.get(), "the batch did not start with the long task: the test set-up failed\n" + s.snapshot());
            assertTrue(gaveWayAt.get() != 0, "the long task never gave way to the batch behind it\n" + s.snapshot());
            long waited = gaveWayAt.get() - longStartedAt.get();
            // A lower bound only: sysmon may be late on a loaded machine, never early.
            assertTrue(waited >= Retake.GIVE_WAY_AFTER_NANOS,
                    "the long task gave way " + waited / 1_000 + " us after the batch was taken, before it waited 1 ms\n" + s.snapshot());
        }
    }

    @Test
    void aLongTaskWithNothingWaitingRunsOnPastItsSliceAndGivesWayOnceSomethingWaits() {
        Duration slice = Duration.ofMillis(5);
        try (GmpScheduler s = GmpScheduler.builder().procs(1).timeSlice(slice).name("alone").build()) {
            CountDownLatch ran = new CountDownLatch(1);
            AtomicInteger askedAlone = new AtomicInteger();
            AtomicInteger gaveWay = new AtomicInteger();
            long start = System.nanoTime();
            long alone = Duration.ofMillis(100).toNanos(); // twenty slices with nothing else to run
            long until = start + Probe.BOUND.toNanos();
            boolean[] queued = new boolean[1];
            Runnable[] task = new Runnable[1];
            task[0] = () -> {
                while (System.nanoTime() - until < 0 && ran.getCount() > 0) {
                    if (!queued[0] && System.nanoTime() - start > alone) {
                        queued[0] = true;
                        s.submit(ran::countDown, Placement.LOCAL); // now something waits, on this P
                    }
                    if (LoomSupport.preemptPending() && LoomSupport.takePreemptRequest(Thread.currentThread())) {
                        if (!queued[0]) {
                            askedAlone.incrementAndGet(); // a yield would only put it back: run on
                            continue;
                        }
                        gaveWay.incrementAndGet();
                        s.submit(task[0], Placement.YIELD);
                        return;
                    }
                }
            };
            s.execute(task[0]);
            Probe.await(ran, Probe.BOUND, s, "the task queued behind the long one");
            assertEquals(0, askedAlone.get(), "asked to give way while nothing else waited\n" + s.snapshot());
            assertEquals(1, gaveWay.get(), "the long task gave way to the queued one\n" + s.snapshot());
        }
    }

    private static void sleep(long millis) {
        try {
            Thread.sleep(millis);
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
