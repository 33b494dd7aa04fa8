package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicIntegerArray;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link GmpScheduler#setProcs} ({@link ProcResize}): bounds, the P count that work actually
 * runs on after growing and shrinking, a retired P's queue and timers moving on, and the failure
 * seams (carriers that cannot be started for new Ps, a carrier failing while it holds a retired
 * P). Nothing here is timed: every wait is a bound that fails with the snapshot.
 */
class ProcResizeTest {

    @Test
    void boundsAndClosedAreRefusedWithoutChangingAnything() {
        GmpScheduler s = GmpScheduler.builder().procs(2).maxCarriers(4).name("bounds").build();
        IllegalArgumentException zero = assertThrows(IllegalArgumentException.class, () -> s.setProcs(0));
        assertTrue(zero.getMessage().contains("was 0"), zero.getMessage());
        IllegalArgumentException five = assertThrows(IllegalArgumentException.class, () -> s.setProcs(5));
        assertTrue(five.getMessage().contains("was 5") && five.getMessage().contains("(4)"), five.getMessage());
        assertEquals(2, s.procs());
        s.setProcs(4);
        assertEquals(4, s.snapshot().procs());
        assertEquals(4, s.snapshot().processors().size());
        Probe.awaitTrue(() -> s.snapshot().idleProcs() == 4, Probe.BOUND, s, "four idle Ps");
        s.setProcs(1);
        SchedulerSnapshot one = s.snapshot();
        assertEquals(1, one.procs());
        assertEquals(1, one.idleProcs(), one.toString());
        s.setProcs(1); // no change
        Probe.closeWithin(s, Probe.BOUND);
        IllegalStateException closed = assertThrows(IllegalStateException.class, () -> s.setProcs(2));
        assertTrue(closed.getMessage().contains("closed"), closed.getMessage());
        assertEquals(1, s.procs());
    }

    /**
     * Ten CPU-bound tasks that never end by themselves (plain Runnables: no preemption polls),
     * each counting itself running: after growing to 3 Ps, 3 run at once; after shrinking back to
     * 1, only 1 does, once the surplus Ps' carriers have reached a scheduling point (here each
     * task runs in short steps, re-submitting itself, so that scheduling points come often).
     */
    @Test
    void workRunsOnTheNewNumberOfPs() {
        GmpScheduler s = GmpScheduler.builder().procs(1).maxCarriers(8).name("width").build();
        AtomicInteger running = new AtomicInteger();
        AtomicInteger widest = new AtomicInteger();
        AtomicBoolean stop = new AtomicBoolean();
        int tasks = 10;
        CountDownLatch stopped = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            s.execute(new Step(s, running, widest, stop, stopped));
        }
        Probe.awaitTrue(() -> widest.get() >= 1, Probe.BOUND, s, "a step running");
        assertEquals(1, widest.get(), "one P: one step at a time");
        s.setProcs(3);
        Probe.awaitTrue(() -> widest.get() == 3, Probe.BOUND, s, "three steps at once on three Ps");
        s.setProcs(1);
        // Once every carrier of a retired P has given it up, one step at a time again.
        Probe.awaitTrue(() -> s.snapshot().processors().size() == 1 && ProcResizeTest.retiring(s) == 0,
                Probe.BOUND, s, "the retired Ps given up");
        // A step that counted itself running before the P was given up may still be about to
        // record that count (descheduled between its increment and its maximum): let every step
        // that started before this point end, then start counting afresh.
        long settled = s.snapshot().tasksRun();
        Probe.awaitTrue(() -> s.snapshot().tasksRun() > settled + 20, Probe.BOUND, s, "the steps of before ending");
        widest.set(running.get());
        long before = s.snapshot().tasksRun();
        Probe.awaitTrue(() -> s.snapshot().tasksRun() > before + 200, Probe.BOUND, s, "more steps");
        assertEquals(1, widest.get(), "after shrinking to one P, steps ran " + widest.get() + " at once\n" + s.snapshot());
        stop.set(true);
        Probe.await(stopped, Probe.BOUND, s, "every step stopping");
        Probe.closeWithin(s, Probe.BOUND);
        FailureModelTest.assertQuiet(s.snapshot());
    }

    /** Computes ~20 µs, counting itself running, then re-submits itself until stopped. */
    private record Step(GmpScheduler s, AtomicInteger running, AtomicInteger widest, AtomicBoolean stop,
                        CountDownLatch stopped) implements Runnable {
        @Override
        public void run() {
            int now = running.incrementAndGet();
            widest.accumulateAndGet(now, Math::max);
            Probe.spin(Duration.ofNanos(20_000));
            running.decrementAndGet();
            if (stop.get()) {
                stopped.countDown();
            } else {
                s.execute(this);
            }
        }
    }

    static int retiring(GmpScheduler s) {
        return s.scheduling.resize.retiring();
    }

    /** Every slot of {@code counts} is 1: each task (or timer) ran exactly once. */
    static void assertEachOnce(AtomicIntegerArray counts, String what) {
        for (int i = 0; i < counts.length(); i++) {
            assertEquals(1, counts.get(i), what + " " + i);
        }
    }

    /**
     * A task on P1 queues 100 tasks on its own P and waits; P1 is retired meanwhile. The queued
     * tasks must all run once (moved to the global queue when the carrier gives P1 up, or stolen
     * before), and the P1's timers go to P0 and fire once; a cancelled one does not.
     */
    @Test
    void aRetiredPsQueueAndTimersMoveOnAndRunOnce() {
        GmpScheduler s = GmpScheduler.builder().procs(2).name("retire").build();
        int queued = 100;
        AtomicIntegerArray runs = new AtomicIntegerArray(queued);
        AtomicInteger timerRuns = new AtomicInteger();
        AtomicInteger cancelledRuns = new AtomicInteger();
        CountDownLatch onP1 = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch done = new CountDownLatch(queued);
        List<Future<?>> cancelLater = new ArrayList<>();
        // Keep P0 busy so that the holder task lands on P1.
        CountDownLatch p0Busy = new CountDownLatch(1);
        CountDownLatch p0Release = new CountDownLatch(1);
        s.execute(() -> {
            p0Busy.countDown();
            Probe.block(p0Release);
        });
        Probe.await(p0Busy, Probe.BOUND, s, "P0's task");
        s.execute(() -> {
            for (int i = 0; i < queued; i++) {
                int id = i;
                s.execute(() -> {
                    runs.incrementAndGet(id);
                    done.countDown();
                });
            }
            for (int i = 0; i < 20; i++) {
                s.schedule(timerRuns::incrementAndGet, TimeUnit.MILLISECONDS.toNanos(300));
            }
            synchronized (cancelLater) {
                cancelLater.add(s.schedule(cancelledRuns::incrementAndGet, TimeUnit.MILLISECONDS.toNanos(300)));
            }
            onP1.countDown();
            Probe.block(release);
        });
        Probe.await(onP1, Probe.BOUND, s, "the task on P1");
        int p1Timers = s.snapshot().processors().get(1).pendingTimers();
        s.setProcs(1);
        assertEquals(1, s.snapshot().procs());
        assertEquals(p1Timers, s.snapshot().processors().get(0).pendingTimers(), "P1's timers moved to P0\n" + s.snapshot());
        synchronized (cancelLater) {
            assertTrue(cancelLater.get(0).cancel(false), "cancelled after its move");
        }
        p0Release.countDown();
        release.countDown();
        Probe.await(done, Probe.BOUND, s, "every task queued on the retired P");
        Probe.awaitTrue(() -> timerRuns.get() == 20, Probe.BOUND, s, "the moved timers firing");
        Probe.awaitTrue(() -> retiring(s) == 0, Probe.BOUND, s, "P1 given up");
        Probe.closeWithin(s, Probe.BOUND);
        assertEachOnce(runs, "task");
        assertEquals(20, timerRuns.get());
        assertEquals(0, cancelledRuns.get(), "a timer cancelled after its move fired");
        assertEquals(1, s.snapshot().processors().size());
        FailureModelTest.assertQuiet(s.snapshot());
    }

    /**
     * Moving a retired P's timers fails half-way (an OutOfMemoryError, injected on the fifth):
     * the failure is reported once (Site.RESIZE), the four moved timers fire from P0, the others
     * from the retired P's heap, which carriers still run (the one in hand when it failed is put
     * back there); each fires once, and one cancelled after the resize does not.
     */
    @Test
    void aTimerMoveThatFailsLeavesTheRestToFireFromTheRetiredP() {
        AtomicInteger moves = new AtomicInteger();
        FailureModelTest.Reports reports = new FailureModelTest.Reports();
        // Without sysmon, which would move the rest at its next round (the next test).
        GmpScheduler s = GmpScheduler.builder().procs(2).uncaughtExceptionHandler(reports).name("movefault")
                .withoutSysmon()
                .injectTimerMoveFault(() -> {
                    if (moves.incrementAndGet() == 5) {
                        throw new OutOfMemoryError("injected in a timer move (test)");
                    }
                }).build();
        int timers = 20; // due in 2 s: still pending when the test looks, on a loaded machine too
        AtomicIntegerArray fired = new AtomicIntegerArray(timers);
        AtomicInteger cancelledRuns = new AtomicInteger();
        List<Future<?>> scheduled = new ArrayList<>();
        CountDownLatch onP1 = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch p0Busy = new CountDownLatch(1);
        CountDownLatch p0Release = new CountDownLatch(1);
        s.execute(() -> { // keeps P0 busy, so that the next task lands on P1
            p0Busy.countDown();
            Probe.block(p0Release);
        });
        Probe.await(p0Busy, Probe.BOUND, s, "P0's task");
        s.execute(() -> {
            synchronized (scheduled) {
                for (int i = 0; i < timers; i++) {
                    int id = i;
                    scheduled.add(s.schedule(() -> fired.incrementAndGet(id), TimeUnit.SECONDS.toNanos(2)));
                }
                scheduled.add(s.schedule(cancelledRuns::incrementAndGet, TimeUnit.SECONDS.toNanos(2)));
            }
            onP1.countDown();
            Probe.block(release);
        });
        Probe.await(onP1, Probe.BOUND, s, "the task on P1");
        assertEquals(timers + 1, s.snapshot().processors().get(1).pendingTimers(), "the timers on P1\n" + s.snapshot());
        s.setProcs(1); // the failure is reported, not thrown
        assertEquals(1, s.snapshot().procs());
        assertEquals(1, reports.schedulerFailures(SchedulerFailure.Site.RESIZE), "reported: " + reports.all);
        assertEquals(4, s.snapshot().processors().get(0).pendingTimers(), "moved before the failure\n" + s.snapshot());
        synchronized (scheduled) {
            assertTrue(scheduled.get(timers).cancel(false), "the last timer, moved or left behind, cancelled");
        }
        p0Release.countDown();
        release.countDown();
        Probe.awaitTrue(() -> {
            for (int i = 0; i < timers; i++) {
                if (fired.get(i) == 0) {
                    return false;
                }
            }
            return true;
        }, Probe.BOUND, s, "every timer firing, moved or left behind");
        Probe.awaitTrue(() -> retiring(s) == 0, Probe.BOUND, s, "P1 given up");
        Probe.closeWithin(s, Probe.BOUND);
        assertEachOnce(fired, "timer");
        assertEquals(0, cancelledRuns.get(), "a cancelled timer fired");
        FailureModelTest.assertQuiet(s.snapshot());
    }

    /**
     * After a timer move fails half-way, sysmon moves the timers left on the retired P at its
     * next round: they come due on P0 like the others, rather than waiting until some carrier
     * runs out of work and looks at the retired heap (under load, seconds).
     */
    @Test
    void sysmonMovesTheTimersAFailedMoveLeftBehind() {
        AtomicInteger moves = new AtomicInteger();
        FailureModelTest.Reports reports = new FailureModelTest.Reports();
        GmpScheduler s = GmpScheduler.builder().procs(2).uncaughtExceptionHandler(reports).name("stranded")
                .injectTimerMoveFault(() -> {
                    if (moves.incrementAndGet() == 5) {
                        throw new OutOfMemoryError("injected in a timer move (test)");
                    }
                }).build();
        int timers = 20;
        List<Future<?>> scheduled = new ArrayList<>();
        CountDownLatch onP1 = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch p0Busy = new CountDownLatch(1);
        CountDownLatch p0Release = new CountDownLatch(1);
        s.execute(() -> { // keeps P0 busy, so that the next task lands on P1
            p0Busy.countDown();
            Probe.block(p0Release);
        });
        Probe.await(p0Busy, Probe.BOUND, s, "P0's task");
        s.execute(() -> {
            synchronized (scheduled) {
                for (int i = 0; i < timers; i++) {
                    scheduled.add(s.schedule(() -> { }, TimeUnit.HOURS.toNanos(1)));
                }
            }
            onP1.countDown();
            Probe.block(release);
        });
        Probe.await(onP1, Probe.BOUND, s, "the task on P1");
        s.setProcs(1);
        assertEquals(1, reports.schedulerFailures(SchedulerFailure.Site.RESIZE), "reported: " + reports.all);
        Probe.awaitTrue(() -> s.snapshot().processors().get(0).pendingTimers() == timers, Probe.BOUND, s,
                "every timer on P0");
        assertEquals(0, s.scheduling.allp[1].timers.size(), "nothing left on the retired P");
        synchronized (scheduled) {
            scheduled.forEach(f -> f.cancel(false)); // close() would wait for them
        }
        p0Release.countDown();
        release.countDown();
        Probe.closeWithin(s, Probe.BOUND);
    }

    /**
     * After a shrink, carriers beyond the new number of Ps are spare and retire after their
     * keep-alive, though they parked (untimed) while they were not spare. They used to stay parked
     * for ever: only a later change of the carrier count woke them to look again.
     */
    @Test
    void carriersSpareAfterAShrinkRetireAfterTheirKeepAlive() {
        GmpScheduler s = GmpScheduler.builder().procs(3).keepAlive(Duration.ofMillis(50)).name("spare").build();
        CountDownLatch all = new CountDownLatch(3);
        CountDownLatch go = new CountDownLatch(1);
        for (int i = 0; i < 3; i++) { // three at once: three carriers
            s.execute(() -> {
                all.countDown();
                Probe.block(go);
            });
        }
        Probe.await(all, Probe.BOUND, s, "three carriers");
        go.countDown();
        Probe.awaitTrue(() -> s.snapshot().idleCarriers() == 3, Probe.BOUND, s, "three carriers parked");
        s.setProcs(1);
        Probe.awaitTrue(() -> s.snapshot().carriers() == 1, Probe.BOUND, s, "the two spare carriers retired");
        CountDownLatch after = new CountDownLatch(1);
        s.execute(after::countDown);
        Probe.await(after, Probe.BOUND, s, "a task on the remaining carrier");
        Probe.closeWithin(s, Probe.BOUND);
    }

    /**
     * A timer moves from a retired P as it is: the caller's Future is the timer that lands on P0,
     * so cancelling it after the shrink reaches it there, nothing is left pending, and resizing
     * again and again does not make copies. (The timers used to move as wrappers around the
     * caller's timer: a cancel never reached the wrapper, which stayed pending until its due
     * time, and was wrapped again at every later shrink.)
     */
    @Test
    void aTimerCancelledAfterItsPWasRetiredLeavesNothingBehind() {
        GmpScheduler s = GmpScheduler.builder().procs(2).name("cancelmoved").build();
        int timers = 200;
        AtomicInteger fired = new AtomicInteger();
        List<Future<?>> futures = new ArrayList<>();
        CountDownLatch onP1 = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        CountDownLatch p0Busy = new CountDownLatch(1);
        CountDownLatch p0Release = new CountDownLatch(1);
        s.execute(() -> { // keeps P0 busy, so that the next task lands on P1
            p0Busy.countDown();
            Probe.block(p0Release);
        });
        Probe.await(p0Busy, Probe.BOUND, s, "P0's task");
        s.execute(() -> {
            synchronized (futures) {
                for (int i = 0; i < timers; i++) { // far out: pending all along, as long timeouts are
                    futures.add(s.schedule(fired::incrementAndGet, TimeUnit.HOURS.toNanos(1)));
                }
            }
            onP1.countDown();
            Probe.block(release);
        });
        Probe.await(onP1, Probe.BOUND, s, "the task on P1");
        assertEquals(timers, s.snapshot().processors().get(1).pendingTimers(), s.snapshot().toString());
        s.setProcs(1);
        assertEquals(timers, s.snapshot().processors().get(0).pendingTimers(), "moved to P0\n" + s.snapshot());
        synchronized (futures) {
            for (Future<?> future : futures) {
                assertTrue(future.cancel(false));
            }
        }
        assertEquals(0, s.snapshot().pendingTimers(), "cancelled after the move, yet pending\n" + s.snapshot());
        for (int i = 0; i < 10; i++) { // each shrink used to wrap the wrappers again
            s.setProcs(2);
            s.setProcs(1);
        }
        assertEquals(0, s.snapshot().pendingTimers(), s.snapshot().toString());
        assertTrue(s.scheduling.allp[0].timers.size() <= timers, "P0's heap holds copies: "
                + s.scheduling.allp[0].timers.size());
        s.schedule(() -> { }, 0); // an add drops the cancelled timers (more than a quarter of the heap)
        Probe.awaitTrue(() -> s.scheduling.allp[0].timers.size() <= 1, Probe.BOUND, s, "the cancelled timers dropped");
        p0Release.countDown();
        release.countDown();
        Probe.closeWithin(s, Probe.BOUND);
        assertEquals(0, fired.get(), "a cancelled timer fired");
        FailureModelTest.assertQuiet(s.snapshot());
    }

    /**
     * Timers that throw, due while their P is being retired: each fires once and is reported
     * once, whether it fired before, during or after its move. (The wrappers that timers used to
     * move in threw again what the moved timer had thrown, so a timer that fired between the copy
     * and the clear was reported twice.)
     */
    @Test
    void aFailingTimerMovedFromARetiredPIsReportedOnce() {
        FailureModelTest.Reports reports = new FailureModelTest.Reports();
        GmpScheduler s = GmpScheduler.builder().procs(2).maxCarriers(8).uncaughtExceptionHandler(reports)
                .name("failmoved").build();
        int rounds = 10;
        int perRound = 2000;
        AtomicIntegerArray fired = new AtomicIntegerArray(rounds * perRound);
        for (int round = 0; round < rounds; round++) {
            s.setProcs(2);
            for (int i = 0; i < perRound; i++) {
                int id = round * perRound + i;
                s.schedule(() -> {
                    fired.incrementAndGet(id);
                    throw new IllegalStateException("timer " + id + " (test)");
                }, TimeUnit.MICROSECONDS.toNanos(i / 4)); // due over half a millisecond, while they move
            }
            s.setProcs(1); // P1's timers move while they come due
        }
        Probe.awaitTrue(() -> {
            for (int i = 0; i < fired.length(); i++) {
                if (fired.get(i) == 0) {
                    return false;
                }
            }
            return true;
        }, Probe.BOUND, s, "every timer firing");
        Probe.closeWithin(s, Probe.BOUND);
        assertEachOnce(fired, "timer");
        long reported = reports.all.stream().filter(f -> f instanceof IllegalStateException).count();
        assertEquals(rounds * perRound, reported, "each failing timer reported once");
    }

    /**
     * Growing when no carrier can be started for the new Ps: setProcs returns, the failure is
     * reported, the Ps wait idle, and every task runs on the carriers there are.
     */
    @Test
    void growingWhenCarriersCannotBeStartedLosesNothing() {
        FailureModelTest.LimitedFactory factory = new FailureModelTest.LimitedFactory(1);
        FailureModelTest.Reports reports = new FailureModelTest.Reports();
        GmpScheduler s = GmpScheduler.builder().procs(1).threadFactory(factory).uncaughtExceptionHandler(reports)
                .name("nothreads").build();
        int tasks = 2_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        CountDownLatch done = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            int id = i;
            s.execute(() -> {
                runs.incrementAndGet(id);
                Probe.spin(Duration.ofNanos(2_000));
                done.countDown();
            });
        }
        s.setProcs(3); // must not throw
        assertEquals(3, s.procs());
        Probe.await(done, Probe.BOUND, s, "every task on the one carrier there is");
        Probe.closeWithin(s, Probe.BOUND);
        assertEachOnce(runs, "task");
        assertTrue(factory.refused.get() > 0, "no carrier was asked for");
        assertTrue(reports.schedulerFailures(SchedulerFailure.Site.CARRIER_START) >= 1, "reported: " + reports.all);
        FailureModelTest.assertQuiet(s.snapshot());
    }

    /**
     * Carriers fail in their loop (outside a task) while Ps are retired and activated again: the
     * failing carrier gives its P back through the same path (Idle.putP), so a retired P is
     * counted out and never reaches the idle list; every task runs once and close terminates.
     */
    @Test
    void aCarrierFailingWhileItHoldsARetiredPGivesItUp() {
        AtomicInteger beforeTask = new AtomicInteger();
        FailureModelTest.Reports reports = new FailureModelTest.Reports();
        GmpScheduler s = GmpScheduler.builder().procs(3).uncaughtExceptionHandler(reports).name("failing")
                .injectLoopFault(() -> {
                    if (beforeTask.incrementAndGet() % 700 == 0) {
                        throw new OutOfMemoryError("injected in the loop (test)");
                    }
                }).build();
        int tasks = 6_000;
        AtomicIntegerArray runs = new AtomicIntegerArray(tasks);
        CountDownLatch done = new CountDownLatch(tasks);
        for (int i = 0; i < tasks; i++) {
            int id = i;
            s.execute(() -> {
                runs.incrementAndGet(id);
                Probe.spin(Duration.ofNanos(3_000));
                done.countDown();
            });
            if (i % 500 == 0) {
                s.setProcs(1 + (i / 500) % 3);
            }
        }
        Probe.await(done, Probe.BOUND, s, "every task while carriers fail and Ps are retired");
        Probe.closeWithin(s, Probe.BOUND);
        assertEachOnce(runs, "task");
        assertTrue(reports.schedulerFailures(SchedulerFailure.Site.CARRIER) >= 1, "reported: " + reports.all);
        assertEquals(0, retiring(s));
        FailureModelTest.assertQuiet(s.snapshot());
        assertFalse(s.snapshot().processors().isEmpty());
    }

}
