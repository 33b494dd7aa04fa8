package io.loomgmp.soak;

import io.loomgmp.dispatcher.GmpScheduler;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import java.util.SplittableRandom;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.FutureTask;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A timer's checks: each can fail. A scheduler that runs a timer early, or runs one whose cancel
 * came before it was due, is played here by calling the task directly; the race that
 * {@code cancel(false)} allows is played with a future of the test's own.
 */
class TimerTaskTest {
    private static final long FAR = TimeUnit.SECONDS.toNanos(30);

    private final Ledger ledger = new Ledger();
    private final GmpScheduler scheduler = GmpScheduler.builder().procs(1).name("timer-task-test").build();
    private final ScheduledThreadPoolExecutor platformLater = new ScheduledThreadPoolExecutor(1);
    private final Work work = new Work(scheduler, ledger, Thread.ofVirtual().factory(), platformLater, System.err);
    private final SplittableRandom random = new SplittableRandom(1);
    private final AtomicInteger actions = new AtomicInteger();

    @AfterEach
    void close() {
        platformLater.shutdownNow();
        scheduler.close();
    }

    @Test
    void aTimerFiresOnceNotEarlyAndSettles() throws InterruptedException {
        CountDownLatch fired = new CountDownLatch(1);
        work.schedule(TimeUnit.MILLISECONDS.toNanos(20), fired::countDown, random, 0);
        assertTrue(fired.await(30, TimeUnit.SECONDS));
        awaitSettled();
        assertEquals(1, ledger.timersFired.sum());
        assertEquals(0, ledger.violations(), ledger.violationDetails().toString());
        assertEquals(1, ledger.timers(Ledger.Source.PLATFORM));
    }

    @Test
    void aTimerCancelledBeforeItIsDueSettlesAsCancelledAndNeverRuns() {
        TimerTask timer = work.schedule(FAR, actions::incrementAndGet, random, 0);
        timer.cancel();
        assertEquals(0, ledger.outstanding());
        assertEquals(1, ledger.timersCancelled.sum());
        assertEquals(0, actions.get());
        assertEquals(0, ledger.violations());
    }

    @Test
    void aRunAfterACancelThatReturnedBeforeTheDueTimeIsAViolation() {
        TimerTask timer = work.schedule(FAR, actions::incrementAndGet, random, 0);
        timer.cancel();
        timer.run(); // a scheduler that ran it anyway: a timer moved without its cancel, say
        assertEquals(1, ledger.violations(Ledger.Violation.CANCELLED_TIMER_RAN), ledger.violationDetails().toString());
        assertEquals(0, actions.get(), "the cancelled action ran");
        assertEquals(0, ledger.outstanding(), "settled once, by the cancel");
    }

    @Test
    void aRunBeforeTheCancelThatReturnedBeforeTheDueTimeIsAViolationToo() {
        TimerTask timer = work.schedule(FAR, actions::incrementAndGet, random, 0);
        timer.run(); // early, and then cancelled: both broken promises are seen
        timer.cancel();
        assertEquals(1, ledger.violations(Ledger.Violation.TIMER_EARLY), ledger.violationDetails().toString());
        assertEquals(1, ledger.violations(Ledger.Violation.CANCELLED_TIMER_RAN), ledger.violationDetails().toString());
        assertEquals(0, ledger.outstanding(), "settled once, by the run");
    }

    @Test
    void aCancelThatMeetsARunAfterTheDueTimeIsTheAllowedRace() {
        // The run first (its FutureTask passed its state check just before the cancel), then the cancel.
        TimerTask runFirst = new TimerTask(work, random, 0, System.nanoTime() - 1, actions::incrementAndGet);
        runFirst.future = new FutureTask<>(runFirst, null);
        runFirst.run();
        runFirst.cancel(); // returns true: the test's future never ran
        // The cancel first, then a run that had passed its check before it and was delayed on its way.
        TimerTask cancelFirst = new TimerTask(work, random, 0, System.nanoTime() - 1, actions::incrementAndGet);
        cancelFirst.future = new FutureTask<>(cancelFirst, null);
        cancelFirst.cancel();
        cancelFirst.run();
        assertEquals(0, ledger.violations(), ledger.violationDetails().toString());
        assertEquals(2, ledger.cancelsRacingTheRun.sum());
        assertEquals(1, actions.get(), "only the run that won its CAS ran its action");
        assertEquals(0, ledger.outstanding(), "each settled once");
    }

    @Test
    void aTaskThatFindsItsCarrierInterruptedSaysSo() {
        TimerTask timer = new TimerTask(work, random, 0, System.nanoTime() - 1, actions::incrementAndGet);
        Thread.currentThread().interrupt();
        timer.run();
        assertEquals(1, ledger.violations(Ledger.Violation.INTERRUPT_LEAKED));
        assertEquals(false, Thread.currentThread().isInterrupted(), "cleared, to report each leak once");
    }

    private void awaitSettled() throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (ledger.outstanding() != 0 && System.nanoTime() - deadline < 0) {
            Thread.sleep(1);
        }
        assertEquals(0, ledger.outstanding(), scheduler.snapshot().toString());
    }
}
