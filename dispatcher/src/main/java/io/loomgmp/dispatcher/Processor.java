package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * A P: the right to run tasks, and the run queue that goes with it. There are exactly
 * {@code procs} of them.
 *
 * <p>Ownership: a P is held by at most one carrier at a time ({@link #owner}); it changes hands
 * only under the scheduler lock ({@code acquire}/{@code release} in {@link Scheduling}). Everything
 * here except the run queue's thief side, {@link #owner} and the counters' readers belongs to the
 * holder and is accessed plainly by it.
 */
final class Processor {
    private static final VarHandle COUNTS = MethodHandles.arrayElementVarHandle(long[].class);

    final int id;
    final RunQueue runQueue = new RunQueue();

    /**
     * Schedules of this P that did not inherit a time slice (Go's schedtick). Holder only: written
     * plainly; readers elsewhere (snapshots, later sysmon) read it with {@link #schedtick()}.
     */
    private long schedtick;

    /** The carrier holding this P, or {@code null} when it is idle. Written under the scheduler lock. */
    volatile Carrier owner;

    /** Sysmon asked the running task to give this P up; changed only through {@link Preemption}. */
    volatile boolean preemptRequested;

    /**
     * Counters indexed by {@link Counter#ordinal()}. Holder writes with setOpaque (atomic, no
     * fence: only the holder writes, and the handover under the scheduler lock orders one holder's
     * writes before the next's); snapshots read with getOpaque.
     */
    private final long[] counts = new long[Counter.values().length];

    Processor(int id) {
        this.id = id;
    }

    /** Holder only. */
    void count(Counter counter) {
        count(counter, 1);
    }

    /** Holder only. */
    void count(Counter counter, long delta) {
        int i = counter.ordinal();
        COUNTS.setOpaque(counts, i, (long) COUNTS.getOpaque(counts, i) + delta);
    }

    /** Any thread. */
    long counted(Counter counter) {
        return (long) COUNTS.getOpaque(counts, counter.ordinal());
    }

    /** Holder only: a new time slice starts. */
    void tick() {
        SCHEDTICK.setOpaque(this, schedtick + 1);
    }

    /** Any thread. */
    long schedtick() {
        return (long) SCHEDTICK.getOpaque(this);
    }

    private static final VarHandle SCHEDTICK;

    static {
        try {
            SCHEDTICK = MethodHandles.lookup().findVarHandle(Processor.class, "schedtick", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    @Override
    public String toString() {
        return "P" + id;
    }
}
