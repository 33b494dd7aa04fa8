package io.loomgmp.dispatcher;

import java.util.concurrent.atomic.AtomicLongArray;
import java.util.concurrent.atomic.LongAdder;

/**
 * The scheduler's failure reports: every failure inside the scheduler (not in a task) is counted,
 * recorded as a {@code loomgmp.SchedulerFailure} event, and handed to the uncaught-exception
 * handler as a {@link SchedulerFailure}. A failure that repeats (a factory that keeps refusing
 * threads, an event that cannot be recorded) reaches the handler at most once per
 * {@link #REPORT_INTERVAL_NANOS} for each site, with the count of those left out; the counter and
 * the events see every one.
 *
 * <p>Any thread. Never throws: a handler that throws is printed to standard error, and if even
 * that fails the report is dropped (the counter has it).
 */
final class Failures {
    /** Least time between two handler reports for one site. */
    static final long REPORT_INTERVAL_NANOS = 1_000_000_000;

    /**
     * The default uncaught-exception handler: prints the failure, and which carrier it was on, to
     * standard error. Not a lambda: see {@code CarrierLocator.CURRENT_THREAD}.
     */
    static final Thread.UncaughtExceptionHandler PRINT_TO_STANDARD_ERROR = new Thread.UncaughtExceptionHandler() {
        @Override
        public void uncaughtException(Thread carrier, Throwable failure) {
            System.err.print(failure instanceof SchedulerFailure
                    ? "Scheduler failure, reported on \"" + carrier.getName() + "\": "
                    : "Exception in a task on carrier \"" + carrier.getName() + "\" ");
            failure.printStackTrace();
        }
    };

    private final String name;
    private final Thread.UncaughtExceptionHandler handler;
    private final LongAdder count = new LongAdder();
    /** Per site: when the handler last got one, and how many were left out since. */
    private final AtomicLongArray reportedAt = new AtomicLongArray(SchedulerFailure.Site.values().length);
    private final AtomicLongArray leftOut = new AtomicLongArray(SchedulerFailure.Site.values().length);

    Failures(String name, Thread.UncaughtExceptionHandler handler) {
        this.name = name;
        this.handler = handler;
    }

    /** {@code failure} happened at {@code site}; {@code recovery} says what the scheduler did about it. */
    void report(SchedulerFailure.Site site, Throwable failure, String recovery) {
        try {
            count.increment();
            Events.failure(name, site, failure, recovery);
            int i = site.ordinal();
            long now = System.nanoTime();
            long last = reportedAt.get(i);
            if (last != 0 && now - last < REPORT_INTERVAL_NANOS) {
                leftOut.incrementAndGet(i);
                return;
            }
            if (!reportedAt.compareAndSet(i, last, now == 0 ? 1 : now)) {
                leftOut.incrementAndGet(i); // another thread reports this site right now
                return;
            }
            long skipped = leftOut.getAndSet(i, 0);
            String message = "scheduler " + name + ": " + failure + " at " + site + "; " + recovery
                    + (skipped == 0 ? "" : " (" + skipped + " more at this site since the last report)");
            reportToHandler(new SchedulerFailure(site, message, failure));
        } catch (Throwable reportFailure) {
            // An OutOfMemoryError while reporting: the counter above has it, nothing else can.
        }
    }

    /**
     * Hands what a task (or a timer's task) threw, or a {@link SchedulerFailure}, to the
     * uncaught-exception handler, with the current thread. Never throws: a handler that throws is
     * printed to standard error.
     */
    void reportToHandler(Throwable failure) {
        try {
            handler.uncaughtException(Thread.currentThread(), failure);
        } catch (Throwable handlerFailure) {
            // The handler itself failed: a carrier must survive anything a task does.
            try {
                handlerFailure.addSuppressed(failure);
                handlerFailure.printStackTrace();
            } catch (Throwable ignored) {
                // nothing left to report with
            }
        }
    }

    /** Failures reported so far. */
    long count() {
        return count.sum();
    }
}
