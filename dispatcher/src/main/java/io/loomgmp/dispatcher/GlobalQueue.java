package io.loomgmp.dispatcher;

import java.util.ArrayDeque;

/**
 * The global run queue (Go's {@code sched.runq}): tasks that no P owns — submitted from threads
 * that are not carriers, yielded or preempted tasks, and the overflow of full local rings.
 *
 * <p>Every method but {@link #size} must be called with the scheduler lock held (Go's
 * {@code sched.lock}); that lock also guards the idle lists, so "global queue empty and every P
 * idle" can be observed atomically. {@link #size} may be read without the lock as a hint: it is
 * written under the lock with a volatile store, so a reader that then takes the lock sees at least
 * what the hint promised.
 */
final class GlobalQueue {
    private final ArrayDeque<Runnable> tasks = new ArrayDeque<>();
    private volatile int size;

    /** Must hold the scheduler lock. */
    void put(Runnable task) {
        tasks.addLast(task);
        size = tasks.size();
    }

    /** Must hold the scheduler lock. Appends a batch in its order (overflow of a local ring). */
    void putBatch(Runnable[] batch) {
        for (Runnable task : batch) {
            tasks.addLast(task);
        }
        size = tasks.size();
    }

    /** Must hold the scheduler lock. */
    Runnable poll() {
        Runnable task = tasks.pollFirst();
        size = tasks.size();
        return task;
    }

    /** Any thread, without the lock: a hint, exact only under the lock. */
    int size() {
        return size;
    }
}
