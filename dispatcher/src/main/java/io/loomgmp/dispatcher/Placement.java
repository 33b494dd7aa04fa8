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
     * the work queued there ({@code runnext} counts), without any lock. When work waits on the
     * global queue's ready lane, the P takes one of those tasks first, at its next schedule, so
     * that the yield gives way to it as Go's {@code Gosched} does by queuing the yielder behind
     * it; from a ring half full or more the yield goes to the back of the ready lane, so that many
     * yielders take turns in order. Cheaper than Go's always-global yield, which with more Ps
     * than cores keeps every yield on the shared queue. Wakes nobody when the running task queues
     * itself (its carrier takes work again at once). A task
     * that yields at a preemption poll (sysmon asked it to give its P up) goes to the global
     * queue's yielded lane instead: behind every runnable task, on any P, as Go's
     * {@code gopreempt_m} puts it on the global queue.
     */
    YIELD
}
