package io.loomgmp.dispatcher;

/**
 * Where {@link GmpScheduler#submit(Runnable, Placement)} queues a task. The placement only
 * matters when the submitting code runs on one of the scheduler's carriers (as located by the
 * {@code CarrierLocator}); from any other thread every task goes to the global queue and wakes an
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
     * For the running task giving way ({@code Thread.yield}): the tail of the local ring, behind
     * the work queued there ({@code runnext} counts), without any lock, while the global queue
     * is empty; the back of the global queue's ready lane when it is not, so that its work gets
     * its turn first and many yielders take turns in order (Go's {@code Gosched}). Cheaper than
     * Go's always-global yield for the common case of a few yielding tasks sharing a P. Wakes
     * nobody when the running task queues itself (its carrier takes work again at once). A task
     * that yields at a preemption poll (sysmon asked it to give its P up) goes to the global
     * queue's yielded lane instead: behind every runnable task, on any P, as Go's
     * {@code gopreempt_m} puts it on the global queue.
     */
    YIELD
}
