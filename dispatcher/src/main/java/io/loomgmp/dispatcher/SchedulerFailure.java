package io.loomgmp.dispatcher;

import java.util.Objects;

/**
 * What the scheduler hands its uncaught-exception handler when something fails inside the
 * scheduler itself rather than in a task: the {@linkplain #getCause() cause}, where it happened
 * ({@link #site()}), and what the scheduler did about it (the message). The scheduler has already
 * recovered when this is reported: no task was lost or run twice, and it runs on with fewer
 * carriers if need be. Also counted ({@link SchedulerSnapshot#failures()}) and recorded as a
 * {@code loomgmp.SchedulerFailure} JFR event.
 */
public final class SchedulerFailure extends RuntimeException {
    private static final long serialVersionUID = 1L;

    /** Where a scheduler failure happened. */
    public enum Site {
        /** A carrier thread could not be made or started (the factory failed, or the OS refused a thread). */
        CARRIER_START,
        /** A carrier caught an error outside any task; it handed its P and its work back and ended. */
        CARRIER,
        /** Sysmon caught an error in a round; it goes on with the next one. */
        SYSMON,
        /** A JFR event could not be recorded; the scheduler goes on without it. */
        EVENT,
        /**
         * A scheduling-latency sample could not be taken or recorded; the task was queued or run
         * as usual, untimed.
         */
        LATENCY_SAMPLE,
        /**
         * Moving a retired P's timers to the remaining Ps failed ({@link GmpScheduler#setProcs});
         * the timers not moved stay in the retired P's heap, where carriers still run them.
         */
        RESIZE,
        /**
         * A virtual thread's yield at a preemption poll failed (its stack could not be frozen: an
         * {@code OutOfMemoryError}); it runs on where it was, and sysmon asks again after another
         * time slice.
         */
        POLL,
        /**
         * A task could not be linked into the global queue for want of memory (an
         * {@code OutOfMemoryError}); it went to the queue's reserve, allocated ahead, which
         * carriers take from first. Nothing was lost.
         */
        GLOBAL_QUEUE
    }

    private final Site site;

    SchedulerFailure(Site site, String message, Throwable cause) {
        super(message, cause);
        this.site = Objects.requireNonNull(site);
    }

    /** Where it failed. */
    public Site site() {
        return site;
    }
}
