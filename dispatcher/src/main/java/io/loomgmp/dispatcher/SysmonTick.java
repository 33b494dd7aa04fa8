package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * What sysmon saw of one P at its last look (Go's {@code p.sysmontick}): the schedtick and since
 * when, the task and since when it was first seen, and the look-again gaps that back off under a
 * steady load. Sysmon's thread only, plain fields, except the task and its time, which other
 * threads read as a seqlock ({@link #runningNanos}).
 */
final class SysmonTick {
    long schedtick = -1;
    long schedtickSince;
    /**
     * The P's tasks-run count when the current task was first seen, or -1. With
     * {@link #runsSince}, the one observation other threads read ({@link #runningNanos}): a
     * seqlock whose sequence is this count, written through {@link #sawTask} and
     * {@link #forget}. Sysmon, the only writer, reads both plainly.
     */
    long runs = -1;
    /** When the current task was first seen running; see {@link #runs}. */
    long runsSince;
    /**
     * How long after a task was first seen to look at it again when it was too young to tell
     * whether it blocks: {@link BlockedCheck#HANDOFF_AFTER_NANOS} / 2 at first, doubled (up to
     * {@link Retake#YOUNG_LOOK_GAP_MAX_NANOS}) each time the task so looked for had ended by the
     * next look, and back to the least once a look finds a carrier blocked.
     */
    long youngLookGap = BlockedCheck.HANDOFF_AFTER_NANOS / 2;
    /** The tasks-run count of the task a look-again was last set for, or -1. */
    long youngLookRuns = -1;
    /**
     * How long after a ready batch was grabbed into this P's ring to look whether it still
     * waits there ({@code Retake.readyBatchWaited}): {@link Retake#GIVE_WAY_AFTER_NANOS} at first, doubled
     * (up to {@link Retake#RING_LOOK_GAP_MAX_NANOS}) each time the batch so looked for had left the
     * ring by the next look, and back to the least once a task gives way to one.
     */
    long ringLookGap = Retake.GIVE_WAY_AFTER_NANOS;
    /** When the batch a look-again was last set for was grabbed, or 0. */
    long ringLookFor;
    /** The tasks-run count of the task last asked to give way, so that it is asked once. */
    long gaveWayRuns = -1;
    /** Whether the P's carrier is blocked in its current task. */
    final BlockedCheck blocked;

    SysmonTick(BlockedCheck blocked) {
        this.blocked = blocked;
    }

    /**
     * Sysmon: the P runs its {@code runs}-th task (-1: none) as first seen {@code since}. The
     * count goes to -1 before {@link #runsSince} changes, and to its new value after, so a
     * reader that finds the same count before and after reading {@code runsSince} read the
     * time that goes with it (see {@link #runningNanos}). The counts of successive tasks only
     * grow, so a reader never mistakes a later task for the one it started reading.
     */
    void sawTask(long runs, long since) {
        RUNS.setOpaque(this, -1L);
        VarHandle.storeStoreFence(); // a reader that sees the new time sees the -1 too
        RUNS_SINCE.setOpaque(this, since);
        RUNS.setRelease(this, runs);
    }

    void forget() {
        schedtick = -1;
        RUNS.setOpaque(this, -1L); // the time alone does not change: nothing to order
        blocked.reset();
    }

    /**
     * Any thread: how long the task that this P is running, its {@code tasksRun}-th, has
     * run at {@code now} ({@code System.nanoTime()}), as sysmon saw it: since sysmon's first look
     * at it, so short by up to one look's interval (10 ms at most while a P is busy, as long as
     * sysmon gets a CPU). 0 when sysmon has not looked at that task yet (it started after the
     * last look, or ended meanwhile).
     */
    long runningNanos(long tasksRun, long now) {
        // Seqlock read (writer: sawTask). Acquire: the time written before this count is
        // visible; the fence keeps the second read of the count after the read of the time.
        long seen = (long) RUNS.getAcquire(this);
        long since = (long) RUNS_SINCE.getOpaque(this);
        VarHandle.loadLoadFence();
        if (seen != tasksRun || (long) RUNS.getOpaque(this) != seen) {
            return 0;
        }
        return Math.max(0, now - since);
    }

    private static final VarHandle RUNS;
    private static final VarHandle RUNS_SINCE;

    static {
        try {
            RUNS = MethodHandles.lookup().findVarHandle(SysmonTick.class, "runs", long.class);
            RUNS_SINCE = MethodHandles.lookup().findVarHandle(SysmonTick.class, "runsSince", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
