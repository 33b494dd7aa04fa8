package io.loomgmp.dispatcher;

import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * Sysmon's look at whether the carrier of one P is blocked inside its task (Go's retake of a P in
 * a syscall asks the same of an M): one per P, sysmon's thread only, plain fields. Blocked means,
 * in the same task since the last {@link #reset}, at each look: thread state WAITING or
 * TIMED_WAITING (parked, a pinned virtual thread) other than waiting to acquire a lock
 * ({@link #isQueuedForALock}); BLOCKED on a monitor, or waiting for such a lock, counted like a
 * futex wait; or RUNNABLE for the JVM but asleep in the kernel ({@link NativeThreadState}, read
 * from {@code /proc} at most every {@link #NATIVE_CHECK_NANOS}) without being put on a CPU in
 * between, nor a garbage collection ending meanwhile ({@link CollectionSentinel}: an allocating
 * thread waits for it). How long each kind must last before the P is handed off is
 * {@link #blockedFor}; sysmon decides the hand-off ({@code Retake.handOffIfBlocked}).
 *
 * <p>What throws here (an unreadable {@code /proc} file is not an error: the look says RUNNING)
 * is a bug or an {@code OutOfMemoryError}, and ends sysmon's round, which sysmon reports and
 * survives.
 */
final class BlockedCheck implements AutoCloseable {
    /**
     * How long a carrier must stay blocked in one task before its P is handed off: long enough
     * that a brief wait inside the JDK (a lock taken while unparking) does not cost a carrier.
     */
    static final long HANDOFF_AFTER_NANOS = 100_000;
    /** Least time between two {@code /proc} looks at the same carrier. */
    static final long NATIVE_CHECK_NANOS = 250_000;
    /**
     * How long a carrier that the JVM calls RUNNABLE must be seen asleep in the kernel before its
     * P is handed off. Longer than {@link #HANDOFF_AFTER_NANOS}: a thread also sleeps in the
     * kernel, for a while, when it waits inside the JVM (for a safepoint or a collection it
     * triggered, on a VM lock, for a page), and none of those is its task blocking it.
     */
    static final long NATIVE_HANDOFF_AFTER_NANOS = 1_000_000;
    /**
     * The same for a carrier asleep in a futex, which is how a thread waits for another's class
     * initialiser, but also for a safepoint or a collection, or on a JVM lock whose holder is
     * descheduled: those last milliseconds on a loaded machine, so a futex wait counts as
     * blocking only once it has lasted this long.
     */
    static final long FUTEX_HANDOFF_AFTER_NANOS = 10_000_000;
    /**
     * The longest a futex or monitor wait is left alone for want of a spare CPU
     * ({@link #cpuToSpare}): after this, it is handed off all the same. A descheduled lock holder
     * gets a CPU within a few scheduler periods (Linux's is at most 24 ms), so a wait this long is
     * a wait for something the blocked carrier's own P must run first (a task queued behind it):
     * without a bound that was a deadlock for as long as the machine stayed busy.
     */
    static final long CPU_VETO_LIMIT_NANOS = 100_000_000;

    /** Shared by every P's check: sysmon's thread only. */
    private final CollectionSentinel collectionSentinel;
    /** Looks in a row at which the carrier was blocked. */
    int looks;
    /** When {@code /proc} was last read for this P's carrier. */
    long checkedAt;
    /** When {@code /proc} first showed this task's carrier asleep, at looks since in a row; 0 if not. */
    long asleepSince;
    /** Whether every look since {@link #asleepSince} found the carrier in a futex wait. */
    boolean futexOnly;
    /** The carrier's {@link NativeThreadState#slices()} then: any change means it woke up in between. */
    long slicesAtAsleep;
    /** Garbage collections ended by then: a thread that allocates waits for them in a futex. */
    long collectionsAtAsleep;
    /** The {@code /proc} view of the carrier last checked for native blocking, kept open. */
    private NativeThreadState nativeState;

    /** The view of OS thread {@code tid}, reopened when the P's carrier changed; null if unreadable. */
    private NativeThreadState nativeStateOf(long tid) {
        if (nativeState == null || nativeState.tid() != tid) {
            if (nativeState != null) {
                nativeState.close();
            }
            nativeState = NativeThreadState.of(tid);
        }
        return nativeState;
    }


    BlockedCheck(CollectionSentinel collectionSentinel) {
        this.collectionSentinel = collectionSentinel;
    }

    /** The P runs another task, or none: start over. */
    void reset() {
        looks = 0;
        asleepSince = 0;
    }

    /**
     * How long the carrier must have been blocked, counted from {@link #blockedSince}, before its P
     * is handed off: by the kind of wait the looks found.
     */
    long blockedFor() {
        return asleepSince == 0 ? HANDOFF_AFTER_NANOS : futexOnly ? FUTEX_HANDOFF_AFTER_NANOS : NATIVE_HANDOFF_AFTER_NANOS;
    }

    /** Since when the carrier has been blocked: asleep in the kernel since, else since its task was first seen. */
    long blockedSince(long taskSeenSince) {
        return asleepSince != 0 ? asleepSince : taskSeenSince;
    }

    /** Whether every look found a futex or monitor wait: a wait that a busy machine, not the task, may cause. */
    boolean futexOrMonitorWait() {
        return asleepSince != 0 && futexOnly;
    }

    /**
     * Sysmon looks at carrier {@code m}, in the same task since the last {@link #reset}: returns
     * the looks in a row, this one included, at which it was blocked ({@link #looks}).
     */
    int look(Carrier m, long now) {
        looks = blockedLooks(m, now);
        return looks;
    }

    private int blockedLooks(Carrier m, long now) {
        if (m.startingCarrier) {
            asleepSince = 0;
            return 0; // in the kernel starting a thread for the scheduler, not blocked by its task
        }
        switch (m.thread.getState()) {
            case BLOCKED -> {
                // Waiting to enter a monitor: most often another thread's short critical section
                // (a class loader's lock while a class loads), long only when its holder is
                // descheduled on a loaded machine. Counted like a futex wait: blocking only once
                // it has lasted FUTEX_HANDOFF_AFTER_NANOS.
                if (asleepSince == 0) {
                    asleepSince = now;
                    futexOnly = true;
                }
                return looks + 1;
            }
            case WAITING, TIMED_WAITING -> {
                if (isQueuedForALock(m)) {
                    // Most often another thread's short critical section; long only when its
                    // holder is descheduled, or when the next owner is a virtual thread queued
                    // behind this very carrier (a convoy: every P can stall so). Counted like a
                    // monitor: blocking once it has lasted FUTEX_HANDOFF_AFTER_NANOS.
                    if (asleepSince == 0) {
                        asleepSince = now;
                        futexOnly = true;
                    }
                    return looks + 1;
                }
                asleepSince = 0;
                return looks + 1;
            }
            case RUNNABLE -> {
                if (m.osThreadId < 0) {
                    return 0;
                }
                if (now - checkedAt < NATIVE_CHECK_NANOS) {
                    return looks; // too soon to read /proc again: no new look
                }
                checkedAt = now;
                NativeThreadState state = nativeStateOf(m.osThreadId);
                int look = state == null ? NativeThreadState.RUNNING : state.look();
                if (look == NativeThreadState.RUNNING) {
                    asleepSince = 0;
                    return 0;
                }
                long slices = state == null ? -1 : state.slices();
                long collections = collectionSentinel.collections();
                if (asleepSince == 0
                        || slices != slicesAtAsleep || collections != collectionsAtAsleep) {
                    // First seen asleep; or it ran between two looks that both found it asleep: a
                    // carrier descheduled, or stopped at safepoints now and then (a loaded
                    // machine, a busy collector), not one blocked in its task; or a collection
                    // ended meanwhile, which it may have been waiting for. Start over.
                    asleepSince = now;
                    futexOnly = true;
                    slicesAtAsleep = slices;
                    collectionsAtAsleep = collections;
                }
                futexOnly &= look == NativeThreadState.FUTEX;
                return looks + 1;
            }
            default -> {
                asleepSince = 0;
                return 0;
            }
        }
    }

    /**
     * Whether carrier {@code m} itself is parked waiting to acquire a {@link ReentrantLock} or
     * {@link ReentrantReadWriteLock}: most likely it waits for another thread's short critical
     * section, not for its task, so it counts as blocked only as late as a monitor wait does. The scheduler's own lock when submitting, or one the JDK takes on the carrier
     * after a virtual thread has unmounted (the timer queue's, when a virtual thread sleeps,
     * which would otherwise cost a hand-off per contended sleep). Latches, semaphores, conditions
     * and a pinned virtual thread's own parks (their blocker is set on the virtual thread, not the
     * carrier) still count as blocked.
     */
    private static boolean isQueuedForALock(Carrier m) {
        Object blocker = LockSupport.getBlocker(m.thread);
        if (!(blocker instanceof AbstractQueuedSynchronizer)) {
            return false;
        }
        Class<?> lock = blocker.getClass().getEnclosingClass(); // ReentrantLock$NonfairSync -> ReentrantLock
        return lock == ReentrantLock.class || lock == ReentrantReadWriteLock.class;
    }

    /**
     * Whether another carrier could run now: fewer of this JVM's threads want a CPU than it may
     * use, {@code availableProcessors()}, which the JDK takes from the container's CPU quota or
     * cpuset where there is one (sysmon itself, which is about to sleep, not counted). This JVM's
     * own threads, not the host's load: in a container whose {@code /proc} shows the host, the
     * host's load can stay high for ever. The host's count ({@code /proc/loadavg}) only where the
     * process's threads cannot be read; true where neither can.
     */
    static boolean cpuToSpare() {
        int runnable = NativeThreadState.runnableThreadsOfThisProcess();
        if (runnable < 0) {
            runnable = NativeThreadState.runnableThreads();
        }
        return runnable < 0 || runnable - 1 < Runtime.getRuntime().availableProcessors();
    }

    @Override
    public void close() {
        if (nativeState != null) {
            nativeState.close();
            nativeState = null;
        }
    }
}
