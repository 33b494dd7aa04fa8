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
    /** The global queue (Go's {@code Gosched} puts a yielding goroutine there). */
    GLOBAL,
    /**
     * For the running task giving way ({@code Thread.yield}, a yield at a preemption poll): the
     * tail of the local ring, behind the work queued there, without the scheduler lock; or the
     * global queue when the ring is empty and only the global queue has other work, so that
     * work gets its turn first. Cheaper than Go's global-queue yield for the common case of
     * several yielding tasks sharing a P; as fair within the P, and the fairness tick and
     * stealing keep the global queue and the other Ps served.
     */
    YIELD
}
