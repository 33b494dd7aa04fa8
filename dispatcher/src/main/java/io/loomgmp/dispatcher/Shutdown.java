package io.loomgmp.dispatcher;

import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.locks.Condition;

/**
 * Shutdown: {@code closed}, then {@code terminated}.
 *
 * <p>{@link #close} sets {@code closed} under the scheduler lock, after which submissions and
 * timers from threads that are not our carriers are rejected; those from tasks running on our
 * carriers are still accepted (they are the continuation of accepted work). The scheduler is
 * <em>quiescent</em> when every P is idle, the global queue is empty, no carrier is still in a
 * task whose P was handed off, and no timer is pending, all read under the lock: work can only be
 * in a queue, held by a carrier that holds a P, in such a task, or in a timer, and an idle P's
 * queue is empty. So a pending timer keeps a closed scheduler running until it fires and its task
 * has run, as {@code ScheduledThreadPoolExecutor} runs its delayed tasks after {@code shutdown}
 * by default; a cancelled timer is not waited for (its cancel tells shutdown:
 * {@link #timerCancelled}).
 *
 * <p>Termination does not need anyone to wait for it: whoever makes a closed scheduler quiescent
 * (the last carrier to give up its P, a detached task returning, or {@code close} itself) calls
 * {@link #signalIfQuiescent}, which sets {@code terminated}, unparks every idle carrier (each then
 * ends) and stops sysmon. So {@code close()} called by a task, which cannot wait for itself,
 * still terminates the scheduler once that task returns. A {@code close()} from any other thread
 * waits for termination, then joins sysmon and every carrier.
 *
 * <p>Failure: nothing here runs user code; a failure while joining (an interrupt) is kept for the
 * caller.
 */
final class Shutdown {
    private final Scheduling scheduling;
    private final Condition terminatedCondition;
    /** Set under the lock; read under it on the rejecting path. */
    private volatile boolean closed;
    /** Set under the lock once quiescent after close; carriers then exit instead of parking. */
    private volatile boolean terminated;

    Shutdown(Scheduling scheduling) {
        this.scheduling = scheduling;
        this.terminatedCondition = scheduling.lock.newCondition();
    }

    boolean isClosed() {
        return closed;
    }

    boolean isTerminated() {
        return terminated;
    }

    RejectedExecutionException rejected() {
        return new RejectedExecutionException("scheduler " + scheduling.name + " is closed");
    }

    /**
     * Must hold the lock. Called whenever a P goes idle, a detached carrier's task returns or a
     * put raced with close: terminates a closed scheduler that has become quiescent.
     */
    void signalIfQuiescent() {
        assert scheduling.lock.isHeldByCurrentThread();
        if (closed && !terminated && isQuiescent()) {
            terminated = true;
            FlightRecording.unregister(scheduling);
            for (Carrier m : scheduling.parking.idleCarrierList()) {
                m.unpark();
            }
            scheduling.sysmon.stop();
            terminatedCondition.signalAll();
        }
    }

    /**
     * Must hold the lock. Every P idle, the global queue empty, no carrier still running a
     * task whose P sysmon handed off (such a task can still submit work), no retired P still
     * held and no resize under way ({@link ProcResize}), and no timer pending.
     */
    private boolean isQuiescent() {
        assert scheduling.lock.isHeldByCurrentThread();
        return scheduling.idle.idleProcs() == scheduling.procs && scheduling.global.isEmpty()
                && scheduling.handOff.detached() == 0
                && scheduling.resize.retiring() == 0 // a retired P still held may hold queued work
                && !scheduling.resize.isResizing() // a timer being moved is in no heap
                && scheduling.timers.pending() == 0;
    }

    /**
     * Any thread: a timer was cancelled. If closed, it may have been the last pending one that
     * kept the scheduler from terminating.
     */
    void timerCancelled() {
        if (closed && !terminated) {
            scheduling.lock.lock();
            try {
                signalIfQuiescent();
            } finally {
                scheduling.lock.unlock();
            }
        }
    }

    /**
     * Stops accepting outside work, waits until every queued task has run, and stops the
     * carriers. Called from one of our own carriers (a task, or a virtual thread on one) it only
     * closes: termination follows once that task returns and the rest has run, without anyone
     * waiting for it.
     */
    void close() {
        boolean interrupted = false;
        scheduling.lock.lock();
        try {
            closed = true;
            signalIfQuiescent();
            if (scheduling.currentCarrierThread() != null || scheduling.currentCarrier() != null) {
                return; // waiting would wait for ourselves
            }
            while (!terminated) {
                try {
                    terminatedCondition.await();
                } catch (InterruptedException e) {
                    interrupted = true; // keep waiting, as ExecutorService.close does
                }
            }
        } finally {
            scheduling.lock.unlock();
        }
        interrupted |= joinUninterruptibly(scheduling.sysmon.thread());
        interrupted |= scheduling.carriers.joinAll();
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
    }

    /** Waits for {@code thread} to end, through interrupts; returns whether one came. */
    static boolean joinUninterruptibly(Thread thread) {
        boolean interrupted = false;
        while (true) {
            try {
                thread.join();
                return interrupted;
            } catch (InterruptedException e) {
                interrupted = true;
            }
        }
    }
}
