package io.loomgmp.dispatcher;

import java.util.concurrent.locks.ReentrantLock;

/**
 * The scheduler's locks: a {@link ReentrantLock} that a virtual thread waits for by spinning on
 * its carrier instead of parking. Code of the scheduler runs on virtual threads too: a task that
 * submits work or adds a timer through the public API, the agent's answer to the JDK's
 * spin heuristic. Parked on one of these locks, such a virtual thread would leave its carrier and
 * wait, as a task, to be scheduled again, while carriers queue behind it for the same lock; if it
 * then waits in the queue of a P whose carrier is one of those, neither ever runs again (this
 * happened: the scheduler lock, a virtual thread waking a carrier, and the carrier giving up its
 * P behind it in the lock's queue). Spinning keeps the virtual thread mounted, so the lock's
 * queue holds only threads that run; the sections these locks guard are short and never block.
 * A virtual thread the JDK has pinned (it submits a task from inside {@code Executor.execute})
 * would park its carrier, which is harmless, but spins as well. Platform threads (carriers,
 * sysmon, outside submitters) park as with any {@code ReentrantLock}.
 */
final class CarrierSafeLock extends ReentrantLock {
    private static final long serialVersionUID = 1L;

    @Override
    public void lock() {
        if (Thread.currentThread().isVirtual()) {
            while (!tryLock()) { // barges, as a non-fair lock may
                Thread.onSpinWait();
            }
        } else {
            super.lock();
        }
    }
}
