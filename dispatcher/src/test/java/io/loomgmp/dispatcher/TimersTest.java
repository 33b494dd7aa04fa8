package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Timers kept per P ({@link GmpScheduler#schedule}): none fires early, none is lost, cancelled ones
 * leave nothing behind, and they fire when their P's carrier is parked, blocked or busy. Bounds
 * are generous: these tests check behaviour, not speed.
 */
class TimersTest {

    @Test
    void aHundredThousandTimersFromCarriersAndOutsideFireNoneEarlyNoneLost() throws InterruptedException {
        int perSource = 25_000;
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("timers").build()) {
            AtomicInteger early = new AtomicInteger();
            AtomicInteger ranOffCarrier = new AtomicInteger();
            CountDownLatch fired = new CountDownLatch(4 * perSource);
            // Two platform threads, and two tasks on carriers, each scheduling timers 0 to 50 ms out.
            List<Thread> outside = new ArrayList<>();
            for (int t = 0; t < 2; t++) {
                long seed = t;
                outside.add(Thread.ofPlatform().start(() -> scheduleMany(s, perSource, seed, early, ranOffCarrier, fired)));
            }
            for (int t = 2; t < 4; t++) {
                long seed = t;
                s.execute(() -> scheduleMany(s, perSource, seed, early, ranOffCarrier, fired));
            }
            for (Thread thread : outside) {
                thread.join();
            }
            Probe.await(fired, Probe.BOUND, s, "every timer to fire");
            assertEquals(0, early.get(), "timers that fired before their delay");
            assertEquals(0, ranOffCarrier.get(), "timer tasks run on a thread that is not a carrier");
            Probe.awaitTrue(() -> s.snapshot().pendingTimers() == 0, Probe.BOUND, s, "no timer left pending");
            assertEquals(4L * perSource, s.snapshot().timersFired(), s.snapshot().toString());
        }
    }

    private static void scheduleMany(GmpScheduler s, int count, long seed, AtomicInteger early,
                                     AtomicInteger ranOffCarrier, CountDownLatch fired) {
        SplittableRandom random = new SplittableRandom(seed);
        for (int i = 0; i < count; i++) {
            long delay = random.nextLong(50_000_000);
            long scheduledAt = System.nanoTime();
            s.schedule(() -> {
                if (System.nanoTime() - scheduledAt < delay) {
                    early.incrementAndGet();
                }
                if (!s.isCarrier(Thread.currentThread())) {
                    ranOffCarrier.incrementAndGet();
                }
                fired.countDown();
            }, delay);
        }
    }

    @Test
    void aMillionCancelledTimeoutsLeaveNothingBehind() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("cancel").build()) {
            AtomicInteger ran = new AtomicInteger();
            CountDownLatch done = new CountDownLatch(1);
            // As a virtual thread's timeouts are: scheduled from a carrier, cancelled soon after.
            s.execute(() -> {
                for (int i = 0; i < 1_000_000; i++) {
                    Future<?> timeout = s.schedule(ran::incrementAndGet, Duration.ofSeconds(60).toNanos());
                    assertTrue(timeout.cancel(false));
                    assertTrue(timeout.isCancelled());
                }
                done.countDown();
            });
            Probe.await(done, Probe.BOUND, s, "a million scheduled and cancelled timeouts");
            SchedulerSnapshot after = s.snapshot();
            assertEquals(0, after.pendingTimers(), after.toString());
            int held = 0;
            Scheduling scheduling = schedulingOf(s);
            for (int i = 0; i < scheduling.allocated; i++) { // allp has room for maxCarriers Ps
                held += scheduling.allp[i].timers.size();
            }
            // Compaction drops cancelled timers once they are more than a quarter of a heap.
            assertTrue(held <= 64, "cancelled timers still held by the heaps: " + held);
            assertEquals(0, ran.get(), "a cancelled timer ran");
        }
    }

    @Test
    void aTimerFiresWhileEveryCarrierIsBlockedAndItsPIsHandedOff() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("blocked").build()) {
            CountDownLatch release = new CountDownLatch(1);
            CountDownLatch blocking = new CountDownLatch(2);
            CountDownLatch fired = new CountDownLatch(2);
            AtomicLong firedAfterNanos = new AtomicLong();
            for (int i = 0; i < 2; i++) {
                s.execute(() -> {
                    // The timer goes to this task's P; then the task blocks its carrier.
                    long at = System.nanoTime();
                    s.schedule(() -> {
                        firedAfterNanos.accumulateAndGet(System.nanoTime() - at, Math::max);
                        fired.countDown();
                    }, Duration.ofMillis(5).toNanos());
                    blocking.countDown();
                    Probe.block(release);
                });
            }
            try {
                Probe.await(blocking, Probe.BOUND, s, "both Ps' carriers blocked");
                Probe.await(fired, Probe.BOUND, s, "the timers of the blocked carriers' Ps");
                assertEquals(1, release.getCount(), "fired while the carriers were still blocked");
                // Counted by sysmon once the hand-off returns, which may be after the timer ran.
                Probe.awaitTrue(() -> s.snapshot().handoffs() >= 1, Probe.BOUND, s, "sysmon counting its hand-off");
                assertTrue(firedAfterNanos.get() >= Duration.ofMillis(5).toNanos(), "not early");
            } finally {
                release.countDown(); // else close() would wait for the blocked tasks forever
            }
        }
    }

    @Test
    void aParkedCarrierSleepsUntilTheEarliestTimer() {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("sleeper").build()) {
            Probe.awaitTrue(() -> s.snapshot().idleProcs() == 2, Probe.BOUND, s, "an idle scheduler");
            CountDownLatch fired = new CountDownLatch(3);
            long[] late = new long[3];
            long start = System.nanoTime();
            long[] delays = {Duration.ofMillis(80).toNanos(), Duration.ofMillis(20).toNanos(), Duration.ofMillis(50).toNanos()};
            for (int i = 0; i < 3; i++) {
                int k = i;
                s.schedule(() -> {
                    late[k] = System.nanoTime() - start - delays[k];
                    fired.countDown();
                }, delays[i]);
            }
            Probe.await(fired, Probe.BOUND, s, "three timers on an idle scheduler");
            for (long lateness : late) {
                assertTrue(lateness >= 0, "fired early");
            }
            SchedulerSnapshot after = s.snapshot();
            assertEquals(3, after.timersFired(), after.toString());
            assertTrue(after.spins() < 50, "the carriers slept rather than spun while waiting\n" + after);
        }
    }

    @Test
    void whatATimerThrowsGoesToTheHandlerAndTheSchedulerGoesOn() {
        AtomicReference<Throwable> reported = new AtomicReference<>();
        CountDownLatch handled = new CountDownLatch(1);
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("throws")
                .uncaughtExceptionHandler((thread, failure) -> {
                    reported.set(failure);
                    handled.countDown();
                }).build()) {
            IllegalStateException failure = new IllegalStateException("from a timer");
            s.schedule(() -> {
                throw failure;
            }, 0);
            Probe.await(handled, Probe.BOUND, s, "the handler to see the failure");
            assertSame(failure, reported.get());
            CountDownLatch after = new CountDownLatch(2);
            s.schedule(after::countDown, Duration.ofMillis(1).toNanos());
            s.execute(after::countDown);
            Probe.await(after, Probe.BOUND, s, "a timer and a task after the failure");
        }
    }

    @Test
    void aTimerDueBehindALongTaskMakesItGiveWay() {
        // The only P runs a task that polls for preemption, as a virtual thread at a poll does.
        // The time slice is a minute, so only sysmon's give-way rule can free the P for the timer.
        try (GmpScheduler s = GmpScheduler.builder().procs(1).timeSlice(Duration.ofSeconds(60)).name("giveway").build()) {
            CountDownLatch fired = new CountDownLatch(1);
            AtomicLong firedAt = new AtomicLong();
            AtomicInteger yields = new AtomicInteger();
            long until = System.nanoTime() + Duration.ofSeconds(2).toNanos();
            Runnable[] hog = new Runnable[1];
            hog[0] = () -> {
                if (Probe.computeUntilAskedToYield(() -> fired.getCount() == 0, until)) {
                    yields.incrementAndGet();
                    s.submit(hog[0], Placement.YIELD);
                }
            };
            CountDownLatch started = new CountDownLatch(1);
            s.execute(() -> {
                started.countDown();
                hog[0].run();
            });
            Probe.await(started, Probe.BOUND, s, "the hog");
            long at = System.nanoTime();
            s.schedule(() -> {
                firedAt.set(System.nanoTime() - at);
                fired.countDown();
            }, Duration.ofMillis(2).toNanos());
            Probe.await(fired, Probe.BOUND, s, "the timer beside the hog");
            assertTrue(firedAt.get() < Duration.ofSeconds(1).toNanos(),
                    "the timer waited for the hog: " + firedAt.get() / 1_000_000 + " ms\n" + s.snapshot());
            assertTrue(yields.get() >= 1, "the hog gave way\n" + s.snapshot());
        }
    }

    /**
     * A timer's task runs on the carrier itself, between tasks: a {@code cancel(true)} while it
     * runs interrupts the carrier (FutureTask does not clear it), and a timer task may interrupt
     * its own thread. Either way the next task on that carrier must start uninterrupted, as after
     * any task.
     */
    @Test
    void aTimerTaskNeverLeavesItsCarrierInterrupted() throws Exception {
        try (GmpScheduler s = GmpScheduler.builder().procs(1).name("interrupt").build()) {
            CountDownLatch running = new CountDownLatch(1);
            Future<?> timer = s.schedule(() -> {
                running.countDown();
                long until = System.nanoTime() + Probe.BOUND.toNanos();
                while (!Thread.currentThread().isInterrupted() && System.nanoTime() - until < 0) {
                    Thread.onSpinWait(); // a task that does not look at interrupts itself
                }
            }, 0);
            Probe.await(running, Probe.BOUND, s, "the timer task to run");
            assertTrue(timer.cancel(true));
            assertEquals(List.of(false), interruptedInNextTask(s), "after a cancel(true) of a running timer");

            CountDownLatch fired = new CountDownLatch(1);
            s.schedule(() -> {
                Thread.currentThread().interrupt();
                fired.countDown();
            }, 0);
            Probe.await(fired, Probe.BOUND, s, "the self-interrupting timer task to run");
            assertEquals(List.of(false), interruptedInNextTask(s), "after a timer task interrupted itself");
        }
    }

    /** Whether the next plain task on the one carrier of {@code s} starts interrupted. */
    private static List<Boolean> interruptedInNextTask(GmpScheduler s) {
        List<Boolean> seen = new java.util.concurrent.CopyOnWriteArrayList<>();
        CountDownLatch ran = new CountDownLatch(1);
        s.execute(() -> {
            seen.add(Thread.currentThread().isInterrupted());
            ran.countDown();
        });
        Probe.await(ran, Probe.BOUND, s, "the next task");
        return seen;
    }

    /**
     * close() from a platform thread with a timer pending: the timer fires when due and its task
     * runs, then the scheduler terminates and close returns, as ScheduledThreadPoolExecutor runs
     * delayed tasks after shutdown. (Quiescence used to ignore the timer heaps: close returned at
     * once, the task never ran, and its Future's get() hung.)
     */
    @Test
    void closeLetsAPendingTimerFireThenTerminates() throws Exception {
        GmpScheduler s = GmpScheduler.builder().procs(2).name("closetimer").build();
        AtomicLong ranAt = new AtomicLong();
        long scheduledAt = System.nanoTime();
        Future<?> timer = s.schedule(() -> ranAt.set(System.nanoTime()), 50_000_000);
        s.close();
        assertTrue(s.isTerminated());
        assertTrue(timer.isDone() && !timer.isCancelled(), "the timer ran to its end before close returned");
        assertTrue(ranAt.get() - scheduledAt >= 50_000_000, "fired early: " + (ranAt.get() - scheduledAt) + " ns");
        timer.get(Probe.BOUND.toSeconds(), java.util.concurrent.TimeUnit.SECONDS);
    }

    /**
     * While close() waits for a far timer: a timer from outside is rejected, one from a task on a
     * carrier is accepted (the continuation of accepted work) and fires, and cancelling the far
     * timer lets close() return.
     */
    @Test
    void whileClosingOutsideTimersAreRejectedAndCancellingTheLastOneLetsCloseReturn() throws Exception {
        GmpScheduler s = GmpScheduler.builder().procs(2).name("closing").build();
        AtomicInteger farRuns = new AtomicInteger();
        Future<?> far = s.schedule(farRuns::incrementAndGet, java.util.concurrent.TimeUnit.HOURS.toNanos(1));
        CountDownLatch go = new CountDownLatch(1);
        CountDownLatch fromCarrier = new CountDownLatch(1);
        s.execute(() -> { // a task still running during close may add timers
            try {
                go.await();
            } catch (InterruptedException e) {
                throw new IllegalStateException(e);
            }
            s.schedule(fromCarrier::countDown, 1_000_000);
        });
        Thread closer = Thread.ofPlatform().start(s::close);
        Probe.awaitTrue(s::isClosed, Probe.BOUND, s, "close to begin");
        assertThrows(java.util.concurrent.RejectedExecutionException.class, () -> s.schedule(() -> { }, 0));
        go.countDown();
        Probe.await(fromCarrier, Probe.BOUND, s, "a carrier's timer during close");
        closer.join(200);
        assertTrue(closer.isAlive(), "close returned with a timer pending");
        assertFalse(s.isTerminated());
        assertTrue(far.cancel(false));
        closer.join(Probe.BOUND.toMillis());
        assertFalse(closer.isAlive(), "close still waits after the last pending timer was cancelled\n" + s.snapshot());
        assertTrue(s.isTerminated());
        assertEquals(0, farRuns.get());
    }

    /**
     * A cancel(false) that comes while the timer's task runs returns true without stopping it,
     * and FutureTask then drops what the task throws: it must reach the handler all the same, as
     * {@code schedule} promises. It used to be lost.
     */
    @Test
    void whatATimerThrowsAfterACancelWhileItRanStillReachesTheHandler() {
        FailureModelTest.Reports reports = new FailureModelTest.Reports();
        try (GmpScheduler s = GmpScheduler.builder().procs(1).uncaughtExceptionHandler(reports).name("cancelthrow").build()) {
            CountDownLatch running = new CountDownLatch(1);
            CountDownLatch cancelled = new CountDownLatch(1);
            Future<?> timer = s.schedule(() -> {
                running.countDown();
                try {
                    cancelled.await();
                } catch (InterruptedException e) {
                    throw new IllegalStateException(e);
                }
                throw new IllegalStateException("thrown after the cancel (test)");
            }, 0);
            Probe.await(running, Probe.BOUND, s, "the timer task to run");
            assertTrue(timer.cancel(false), "a cancel while the task runs returns true");
            cancelled.countDown();
            Probe.awaitTrue(() -> reports.all.stream().anyMatch(f -> "thrown after the cancel (test)".equals(f.getMessage())),
                    Probe.BOUND, s, "the failure at the handler");
            assertEquals(1, reports.all.size(), reports.all.toString());
        }
    }

    /**
     * A race the soak found, made here step by step: a waker has taken the timer sleeper off the
     * idle list to hand it a P (as {@code Idle.wakeP} does under the lock), and before it hands the
     * P over (after the lock) the sleeper's timer comes due. The sleeper must wait for the P it is
     * being handed, not take another idle P to run the timer itself: it did, became a spinner on
     * it, and the waker's spinning count was never given back, so that no wake-up happened again.
     */
    @Test
    void aTimerSleeperReservedByAWakerWaitsForThePItIsHanded() throws InterruptedException {
        try (GmpScheduler s = GmpScheduler.builder().procs(2).name("reserved").withoutSysmon().build()) {
            Future<?> far = s.schedule(() -> { }, java.util.concurrent.TimeUnit.HOURS.toNanos(1));
            try {
                Probe.awaitTrue(() -> s.scheduling.parking.sleeper() != null && s.snapshot().idleProcs() == 2
                        && s.snapshot().idleCarriers() == s.snapshot().carriers(), Probe.BOUND, s,
                        "every carrier parked, one as the timer sleeper");
                Carrier sleeper = s.scheduling.parking.sleeper();
                Scheduling scheduling = s.scheduling;
                Processor p;
                Parking.Reservation reserved = null;
                scheduling.lock.lock();
                try { // the waker's half under the lock, taking the sleeper
                    p = scheduling.idle.getP();
                    reserved = Probe.reserveParked(scheduling.parking, sleeper, s.snapshot().carriers());
                } finally {
                    scheduling.lock.unlock();
                }
                assertSame(sleeper, reserved.parked());
                CountDownLatch fired = new CountDownLatch(1);
                s.schedule(fired::countDown, 0); // due now: the sleeper wakes for it
                boolean early = fired.await(200, java.util.concurrent.TimeUnit.MILLISECONDS);
                scheduling.parking.handTo(reserved, p, false); // the waker's half after the lock
                assertFalse(early, "the reserved sleeper took an idle P of its own to run the timer\n" + s.snapshot());
                Probe.await(fired, Probe.BOUND, s, "the timer, run on the P the sleeper was handed");
            } finally {
                far.cancel(false); // close() would wait for it
            }
            Probe.awaitTrue(() -> s.snapshot().idleProcs() == 2 && s.snapshot().idleCarriers() == s.snapshot().carriers(),
                    Probe.BOUND, s, "rest");
            assertEquals(0, s.snapshot().spinningCarriers(), "a spinning count left behind\n" + s.snapshot());
        }
    }

    @Test
    void schedulingOnATerminatedSchedulerIsRejected() {
        GmpScheduler s = GmpScheduler.builder().procs(1).build();
        s.close();
        try {
            s.schedule(() -> { }, 0);
            throw new AssertionError("schedule after close was accepted");
        } catch (java.util.concurrent.RejectedExecutionException expected) {
            assertFalse(expected.getMessage().isBlank());
        }
    }

    static Scheduling schedulingOf(GmpScheduler s) {
        try {
            var field = GmpScheduler.class.getDeclaredField("scheduling");
            field.setAccessible(true);
            return (Scheduling) field.get(s);
        } catch (ReflectiveOperationException e) {
            throw new AssertionError(e);
        }
    }

}
