package io.loomgmp.trace;

import io.loomgmp.jfr.RunEvent;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * {@code go tool trace}'s goroutine analysis, for virtual threads: for each one, how many runs it
 * had, how long it ran, how long it waited runnable before its runs (and its longest wait), and how
 * its runs ended; and every wait as a scheduling latency (runnable → running) on the P that then
 * ran it, for {@link LatencyProfile}.
 *
 * <p><b>Where a wait starts.</b> A virtual thread becomes runnable when something wakes it (a
 * {@code loomgmp.Wake}) or when it re-queues itself at the end of a run that ended {@code yielded}
 * or {@code preempted}: the dispatcher commits no Wake for a task that re-queues itself, the run's
 * end says it instead. The wait ends when its next run starts. So the wait before a run starts at
 * <ol>
 *   <li>the last wake-up of the thread at or before the run's start and after its previous run's
 *       start, the one the timeline's arrow comes from (an earlier one found the thread already
 *       runnable, or led to a run the recording lost), but no earlier than the end of the previous
 *       run (a carrier can commit the Wake while the thread's run is still closing);</li>
 *   <li>else the end of the previous run, when that run ended yielded or preempted;</li>
 *   <li>else nowhere: <b>a run with no wake-up before it</b> (the thread's first run when it was
 *       started or woken before the recording began, or a Wake the recording dropped) counts as a
 *       run and adds no wait; {@link #runsWithoutWake} counts them.</li>
 * </ol>
 * A wait is the run's start minus that time, and never negative (the two events come from
 * different threads' clocks). A wake-up after a thread's last run adds no wait either
 * ({@link #wakesWithoutRun}: the thread was still runnable when the recording ended, or its run
 * was dropped). Tasks that are not virtual threads all have id 0 and cannot be told apart: they are
 * left out ({@link #otherTaskRuns}).
 *
 * <p>Running time is the sum of the runs' full durations: a run whose P was handed off to another
 * carrier counts whole, since the thread kept its own carrier.
 */
final class ThreadAnalysis {
    /** One virtual thread's figures; nanoseconds, and epoch nanoseconds for times. */
    static final class Row {
        final long virtualThread;
        int runs;
        long runningNanos;
        long runnableNanos;
        /** Runs with a known wake-up before them: the waits summed in runnableNanos. */
        int waits;
        long longestWait;
        /** The earliest wake-up or run start of the thread. */
        long firstSeen = Long.MAX_VALUE;
        long lastRunEnd = Long.MIN_VALUE;
        /** Runs per end kind, indexed as {@link #endKinds}; shorter when a kind appeared later. */
        private int[] ends;
        private long pendingWake = NO_WAKE;
        private long previousFinish;
        private String previousEnd;

        private Row(long virtualThread, int endKinds) {
            this.virtualThread = virtualThread;
            this.ends = new int[endKinds];
        }

        /** Runs that ended as {@code endKinds.get(kind)}. */
        int ended(int kind) {
            return kind < ends.length ? ends[kind] : 0;
        }
    }

    private static final long NO_WAKE = Long.MIN_VALUE;

    /** The end kinds, in the order of the table's columns: the usual four, then any other seen. */
    final List<String> endKinds = new ArrayList<>(List.of(RunEvent.END_PARKED, RunEvent.END_YIELDED,
            RunEvent.END_PREEMPTED, RunEvent.END_FINISHED));
    /** One row per virtual thread that ran, by id. */
    final List<Row> rows;
    final LatencyProfile latency;
    int runsWithoutWake;
    int wakesWithoutRun;
    int otherTaskRuns;
    /** The longest wait, its thread and the P that then ran it; 0, 0 and -1 with no waits. */
    long longestWait;
    long longestWaitThread;
    int longestWaitProcessor = -1;

    private final Map<String, Integer> endIndex = new HashMap<>();
    private long[] waitNanos = new long[1024];
    private int[] waitProcessor = new int[1024];
    private int waitCount;

    private ThreadAnalysis(TraceModel model, int procs) {
        for (int i = 0; i < endKinds.size(); i++) {
            endIndex.put(endKinds.get(i), i);
        }
        Map<Long, Row> byThread = new HashMap<>();
        // Both lists are in time order (TraceModel.sort): one merged pass, a wake-up before a run
        // that starts at the same time (as Timeline links a wake to the first run at or after it).
        List<TraceModel.Wake> wakes = model.wakes;
        int w = 0;
        for (TraceModel.Run run : model.runs) {
            while (w < wakes.size() && wakes.get(w).time() <= run.start()) {
                woken(byThread, wakes.get(w++));
            }
            ran(byThread, run);
        }
        while (w < wakes.size()) {
            woken(byThread, wakes.get(w++));
        }
        List<Row> withRuns = new ArrayList<>();
        for (Row row : byThread.values()) {
            if (row.pendingWake != NO_WAKE) {
                wakesWithoutRun++;
            }
            if (row.runs > 0) {
                withRuns.add(row);
            }
        }
        withRuns.sort(Comparator.comparingLong(r -> r.virtualThread));
        this.rows = List.copyOf(withRuns);
        this.latency = LatencyProfile.of(Arrays.copyOf(waitNanos, waitCount),
                Arrays.copyOf(waitProcessor, waitCount), procs);
        this.waitNanos = null;
        this.waitProcessor = null;
    }

    static ThreadAnalysis of(TraceModel model, int procs) {
        return new ThreadAnalysis(model, procs);
    }

    private void woken(Map<Long, Row> byThread, TraceModel.Wake wake) {
        if (wake.virtualThread() == 0) {
            return; // a task that is not a virtual thread: its run cannot be told from others'
        }
        Row row = row(byThread, wake.virtualThread());
        row.pendingWake = wake.time(); // a later wake-up replaces an earlier one
        row.firstSeen = Math.min(row.firstSeen, wake.time());
    }

    private void ran(Map<Long, Row> byThread, TraceModel.Run run) {
        if (run.virtualThread() == 0) {
            otherTaskRuns++;
            return;
        }
        Row row = row(byThread, run.virtualThread());
        long runnableSince = NO_WAKE;
        if (row.pendingWake != NO_WAKE) {
            runnableSince = row.runs > 0 ? Math.max(row.pendingWake, row.previousFinish) : row.pendingWake;
        } else if (row.runs > 0 && requeuedItself(row.previousEnd)) {
            runnableSince = row.previousFinish;
        }
        if (runnableSince == NO_WAKE) {
            runsWithoutWake++;
        } else {
            long wait = Math.max(0, run.start() - runnableSince);
            row.waits++;
            row.runnableNanos += wait;
            row.longestWait = Math.max(row.longestWait, wait);
            recordWait(wait, run);
        }
        row.runs++;
        row.runningNanos += run.duration();
        countEnd(row, run.end());
        row.pendingWake = NO_WAKE;
        row.previousFinish = run.finish();
        row.previousEnd = run.end();
        row.firstSeen = Math.min(row.firstSeen, run.start());
        row.lastRunEnd = Math.max(row.lastRunEnd, run.finish());
    }

    /** A run that ended so left its thread runnable, queued by itself (no Wake is committed). */
    private static boolean requeuedItself(String end) {
        return RunEvent.END_YIELDED.equals(end) || RunEvent.END_PREEMPTED.equals(end);
    }

    private void recordWait(long wait, TraceModel.Run run) {
        if (waitCount == 0 || wait > longestWait) {
            longestWait = wait;
            longestWaitThread = run.virtualThread();
            longestWaitProcessor = run.processor();
        }
        if (waitCount == waitNanos.length) {
            waitNanos = Arrays.copyOf(waitNanos, waitCount * 2);
            waitProcessor = Arrays.copyOf(waitProcessor, waitCount * 2);
        }
        waitNanos[waitCount] = wait;
        waitProcessor[waitCount] = run.processor();
        waitCount++;
    }

    private void countEnd(Row row, String end) {
        Integer kind = endIndex.get(end);
        if (kind == null) {
            kind = endKinds.size();
            endKinds.add(end);
            endIndex.put(end, kind);
        }
        if (kind >= row.ends.length) {
            row.ends = Arrays.copyOf(row.ends, endKinds.size());
        }
        row.ends[kind]++;
    }

    private Row row(Map<Long, Row> byThread, long virtualThread) {
        return byThread.computeIfAbsent(virtualThread, id -> new Row(id, endKinds.size()));
    }
}
