package io.loomgmp.soak;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The books, and {@link Once}: what makes the soak's "ran exactly once" and "lost" checks able to fail. */
class LedgerTest {
    private final Ledger ledger = new Ledger();

    private Once task(AtomicInteger bodies) {
        return new Once(ledger, Ledger.Kind.TASK) {
            @Override
            void body() {
                bodies.incrementAndGet();
            }
        };
    }

    @Test
    void workIsOutstandingFromItsMakingToTheEndOfItsOneRun() {
        AtomicInteger bodies = new AtomicInteger();
        Once task = task(bodies);
        assertEquals(1, ledger.outstanding(Ledger.Kind.TASK));
        assertEquals(1, ledger.outstanding());
        task.run();
        assertEquals(0, ledger.outstanding());
        assertEquals(1, ledger.settledTotal());
        assertEquals(1, bodies.get());
        assertEquals(0, ledger.violations());
    }

    @Test
    void aSecondRunIsAViolationThatDoesNothingElse() {
        AtomicInteger bodies = new AtomicInteger();
        Once task = task(bodies);
        task.run();
        task.run();
        task.run();
        assertEquals(1, bodies.get(), "the body ran again");
        assertEquals(1, ledger.settledCount(Ledger.Kind.TASK), "settled again");
        assertEquals(2, ledger.violations(Ledger.Violation.RAN_TWICE));
        assertTrue(ledger.violationDetails().getFirst().contains("ran 2 times"), ledger.violationDetails().toString());
    }

    @Test
    void workNeverRunIsOutstandingAndWorkNeverQueuedIsTakenOffTheBooks() {
        AtomicInteger bodies = new AtomicInteger();
        task(bodies);
        Once abandoned = task(bodies);
        abandoned.abandoned();
        assertEquals(1, ledger.outstanding(Ledger.Kind.TASK), "one lost, one never queued");
    }

    @Test
    void aBodyThatThrowsStillSettlesAndTheThrowReachesTheCaller() {
        Once task = new Once(ledger, Ledger.Kind.TASK) {
            @Override
            void body() {
                throw new InjectedFailure.TaskException(this);
            }
        };
        assertThrows(InjectedFailure.TaskException.class, task::run);
        assertEquals(0, ledger.outstanding());
    }

    @Test
    void theFirstFewDetailsOfEachViolationAreKeptAndEveryOneIsCounted() {
        for (int i = 0; i < 100; i++) {
            ledger.violation(Ledger.Violation.TIMER_EARLY, "early " + i);
        }
        ledger.violation(Ledger.Violation.PARK_EARLY, "a park");
        assertEquals(100, ledger.violations(Ledger.Violation.TIMER_EARLY));
        assertEquals(101, ledger.violations());
        assertEquals(Ledger.DETAILS_KEPT + 1, ledger.violationDetails().size());
        assertTrue(ledger.violationDetails().getLast().endsWith("a park"), "a second kind still gets its details");
    }

    @Test
    void lateTimersAreCountedByHowLateAndTheLatestKeepsItsContext() {
        ledger.timerFired(1_000_000, () -> "not kept");
        ledger.timerFired(50_000_000, () -> "not kept: under 100 ms");
        ledger.timerFired(2_000_000_000L, () -> "where it ran");
        ledger.timerFired(200_000_000, () -> "not the latest");
        assertEquals(4, ledger.timersFired.sum());
        long[] late = ledger.lateTimers();
        assertEquals(3, late[0]);
        assertEquals(2, late[1]);
        assertEquals(1, late[2]);
        assertEquals(2_000_000_000L, ledger.maxTimerLatenessNanos());
        assertEquals("2000.0 ms late: where it ran", ledger.latestTimer());
    }
}
