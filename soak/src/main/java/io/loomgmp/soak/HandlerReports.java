package io.loomgmp.soak;

import io.loomgmp.dispatcher.SchedulerFailure;

import java.io.PrintWriter;
import java.io.StringWriter;
import java.util.EnumSet;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The soak scheduler's uncaught-exception handler. A task's injected exception or error is
 * counted ({@link Ledger#thrownReachedHandler}: each must arrive, and only once: a second report
 * of the same throw is a {@link Ledger.Violation#REPORTED_TWICE}); a
 * {@link SchedulerFailure} is expected only with an injected cause, at the site noted (the
 * scheduler reports a site at most once a second, so these are not counted: its snapshot's
 * {@code failures()} is); anything else is a violation. Runs on carriers and sysmon; never
 * blocks (a counter, or a violation's few allocations).
 */
final class HandlerReports implements Thread.UncaughtExceptionHandler {
    private final Ledger ledger;
    private final Set<SchedulerFailure.Site> sites = ConcurrentHashMap.newKeySet();

    HandlerReports(Ledger ledger) {
        this.ledger = ledger;
    }

    @Override
    public void uncaughtException(Thread thread, Throwable failure) {
        if (failure instanceof InjectedFailure.Thrown thrown) {
            if (thrown.firstReport()) {
                ledger.thrownReachedHandler.increment();
            } else {
                ledger.violation(Ledger.Violation.REPORTED_TWICE, failure.getMessage() + ", again on " + thread.getName());
            }
        } else if (failure instanceof SchedulerFailure reported && injected(reported.getCause())) {
            sites.add(reported.site());
        } else {
            StringWriter trace = new StringWriter();
            failure.printStackTrace(new PrintWriter(trace));
            ledger.violation(Ledger.Violation.UNEXPECTED_FAILURE, "the handler got, on " + thread.getName() + ": " + trace);
        }
    }

    private static boolean injected(Throwable cause) {
        return cause instanceof InjectedFailure.CarrierFailure
                || cause instanceof OutOfMemoryError e && e.getMessage() != null && e.getMessage().endsWith("(soak)");
    }

    /** The sites of the scheduler failures reported so far. */
    Set<SchedulerFailure.Site> sites() {
        return sites.isEmpty() ? EnumSet.noneOf(SchedulerFailure.Site.class) : EnumSet.copyOf(sites);
    }
}
