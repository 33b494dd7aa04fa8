package io.loomgmp.soak;

import java.util.concurrent.atomic.AtomicBoolean;

/**
 * What the soak throws on purpose, so that the uncaught-exception handler can tell it from a real
 * failure: a task's exception or error, which the scheduler must hand to the handler once and
 * go on; and a carrier failure thrown in a carrier's loop or a timer move, which the scheduler
 * must recover from and report once as a {@code SchedulerFailure}. No stack traces: they are
 * thrown by the hundred thousand, and their origin is known (a task's says which task threw it).
 */
final class InjectedFailure {
    private InjectedFailure() {
    }

    /** Thrown by a task: the handler must get it exactly once. */
    interface Thrown {
        /** The handler's call: true the first time, false for every later report of the same throw. */
        boolean firstReport();
    }

    /** Thrown by a task: the handler must get it once, and the carrier run on. */
    static final class TaskException extends RuntimeException implements Thrown {
        private static final long serialVersionUID = 1L;
        private final AtomicBoolean reported = new AtomicBoolean();

        TaskException(Object thrower) {
            super("thrown on purpose by " + thrower + " (soak)", null, false, false);
        }

        @Override
        public boolean firstReport() {
            return reported.compareAndSet(false, true);
        }
    }

    /** An {@link Error} thrown by a task: the same promise as for an exception. */
    static final class TaskError extends Error implements Thrown {
        private static final long serialVersionUID = 1L;
        private final AtomicBoolean reported = new AtomicBoolean();

        TaskError(Object thrower) {
            super("an Error thrown on purpose by " + thrower + " (soak)", null, false, false);
        }

        @Override
        public boolean firstReport() {
            return reported.compareAndSet(false, true);
        }
    }

    /** Thrown inside the scheduler through a test seam: a carrier failure, or a failed timer move. */
    static final class CarrierFailure extends Error {
        private static final long serialVersionUID = 1L;

        CarrierFailure(String where) {
            super("injected " + where + " (soak)", null, false, false);
        }
    }
}
