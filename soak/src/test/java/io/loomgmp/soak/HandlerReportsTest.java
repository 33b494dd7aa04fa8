package io.loomgmp.soak;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The handler's books: each throw counted once, a second report of it and anything not injected are violations. */
class HandlerReportsTest {
    private final Ledger ledger = new Ledger();
    private final HandlerReports handler = new HandlerReports(ledger);

    @Test
    void aThrowReportedTwiceIsCountedOnceAndTheSecondReportIsAViolation() {
        InjectedFailure.TaskException thrown = new InjectedFailure.TaskException("task 1");
        handler.uncaughtException(Thread.currentThread(), thrown);
        handler.uncaughtException(Thread.currentThread(), new InjectedFailure.TaskError("task 2"));
        assertEquals(2, ledger.thrownReachedHandler.sum());
        assertEquals(0, ledger.violations());
        handler.uncaughtException(Thread.currentThread(), thrown);
        assertEquals(2, ledger.thrownReachedHandler.sum());
        assertEquals(1, ledger.violations(Ledger.Violation.REPORTED_TWICE));
        assertTrue(ledger.violationDetails().getFirst().contains("thrown on purpose by task 1 (soak), again on "),
                ledger.violationDetails().toString());
    }

    @Test
    void whatNobodyInjectedIsAViolationWithItsStack() {
        handler.uncaughtException(Thread.currentThread(), new IllegalStateException("a real failure"));
        assertEquals(1, ledger.violations(Ledger.Violation.UNEXPECTED_FAILURE));
        assertTrue(ledger.violationDetails().getFirst().contains("java.lang.IllegalStateException: a real failure"),
                ledger.violationDetails().toString());
        assertTrue(ledger.violationDetails().getFirst().contains("at io.loomgmp.soak.HandlerReportsTest"),
                ledger.violationDetails().toString());
        assertEquals(0, ledger.thrownReachedHandler.sum());
    }
}
