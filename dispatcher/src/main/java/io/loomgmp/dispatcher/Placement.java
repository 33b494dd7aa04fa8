package io.loomgmp.dispatcher;

/**
 * Where {@link GmpScheduler#submit(Runnable, Placement)} queues a task. The placement only
 * matters when the submitting code runs on one of the scheduler's carriers (as located by the
 * {@link CarrierLocator}); from any other thread every task goes to the global queue and wakes an
 * idle P.
 */
public enum Placement {
    /**
     * The current P's {@code runnext} slot, displacing its occupant to the local ring's tail: the
     * LIFO hand-off for a task made runnable by the running one (an unpark, a start). It inherits
     * the running task's time slice.
     */
    RUNNEXT,
    /** The tail of the current P's local ring: what a plain {@code execute} from a carrier does. */
    LOCAL,
    /** The global queue, as for a task that yields or is preempted (Go's {@code Gosched}). */
    GLOBAL
}
