package io.loomgmp.trace;

import io.loomgmp.jfr.RunEvent;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The per-virtual-thread figures of {@link ThreadAnalysis}, on hand-made models with exact times. */
class ThreadAnalysisTest {
    private static final long T = 1_000_000_000_000L; // an arbitrary epoch-nanosecond origin
    private static final long M1 = 31;

    private static TraceModel.Run run(int p, long vt, long start, long duration, String end) {
        return new TraceModel.Run(p, M1, vt, T + start, duration, "local", end);
    }

    private static TraceModel.Wake wake(int p, long vt, long time) {
        return new TraceModel.Wake(T + time, p, M1, vt, "runnext");
    }

    private static ThreadAnalysis analyse(TraceModel m, int procs) {
        m.sort();
        return ThreadAnalysis.of(m, procs);
    }

    private static ThreadAnalysis.Row row(ThreadAnalysis a, long vt) {
        return a.rows.stream().filter(r -> r.virtualThread == vt).findFirst()
                .orElseThrow(() -> new AssertionError("no row for VT " + vt + ": " + a.rows));
    }

    private static int ended(ThreadAnalysis a, ThreadAnalysis.Row row, String end) {
        int kind = a.endKinds.indexOf(end);
        assertTrue(kind >= 0, "no column for " + end + ": " + a.endKinds);
        return row.ended(kind);
    }

    @Test
    void runsRunningRunnableLongestWaitAndEndsOfOneThread() {
        TraceModel m = new TraceModel("t");
        m.wakes.add(wake(0, 7, 0));
        m.runs.add(run(0, 7, 100, 50, RunEvent.END_PARKED));       // waited 100
        m.wakes.add(wake(1, 7, 300));
        m.runs.add(run(1, 7, 1_000, 20, RunEvent.END_YIELDED));    // waited 700, on P1
        m.runs.add(run(0, 7, 1_500, 10, RunEvent.END_PREEMPTED));  // runnable since its yield at 1020: 480
        m.runs.add(run(0, 7, 2_000, 5, RunEvent.END_FINISHED));    // runnable since its preemption at 1510: 490
        ThreadAnalysis a = analyse(m, 2);
        ThreadAnalysis.Row r = row(a, 7);
        assertEquals(4, r.runs);
        assertEquals(50 + 20 + 10 + 5, r.runningNanos);
        assertEquals(4, r.waits);
        assertEquals(100 + 700 + 480 + 490, r.runnableNanos);
        assertEquals(700, r.longestWait);
        assertEquals(List.of(1, 1, 1, 1), List.of(ended(a, r, RunEvent.END_PARKED), ended(a, r, RunEvent.END_YIELDED),
                ended(a, r, RunEvent.END_PREEMPTED), ended(a, r, RunEvent.END_FINISHED)));
        assertEquals(T, r.firstSeen, "from its first wake-up");
        assertEquals(T + 2_005, r.lastRunEnd);
        assertEquals(0, a.runsWithoutWake);
        assertEquals(7, a.longestWaitThread);
        assertEquals(1, a.longestWaitProcessor, "the P that ran it, not the waker's");
    }

    @Test
    void aRunWithNoWakeUpBeforeItCountsAsARunAndAddsNoWait() {
        TraceModel m = new TraceModel("t");
        m.runs.add(run(0, 8, 50, 10, RunEvent.END_PARKED));   // its first run: woken before the recording
        m.runs.add(run(0, 8, 500, 10, RunEvent.END_PARKED));  // parked, then ran with no Wake: one was dropped
        m.wakes.add(wake(0, 8, 900));
        m.runs.add(run(0, 8, 1_000, 10, RunEvent.END_FINISHED));
        ThreadAnalysis a = analyse(m, 1);
        ThreadAnalysis.Row r = row(a, 8);
        assertEquals(3, r.runs);
        assertEquals(30, r.runningNanos);
        assertEquals(1, r.waits);
        assertEquals(100, r.runnableNanos);
        assertEquals(100, r.longestWait);
        assertEquals(2, a.runsWithoutWake);
        assertEquals(1, a.latency.all.total, "only the measured wait is in the histogram");
        assertEquals(T + 50, r.firstSeen);
    }

    @Test
    void theLastWakeUpBeforeARunStartsItsWaitButNotBeforeThePreviousRunEnded() {
        TraceModel m = new TraceModel("t");
        m.runs.add(run(0, 9, 0, 100, RunEvent.END_PARKED));
        m.wakes.add(wake(0, 9, 60));       // committed while the run was closing: runnable from 100
        m.runs.add(run(0, 9, 250, 10, RunEvent.END_PARKED));
        m.wakes.add(wake(0, 9, 400));
        m.wakes.add(wake(0, 9, 700));      // the last one before the run is the one that led to it
        m.runs.add(run(0, 9, 1_000, 10, RunEvent.END_PARKED));
        m.wakes.add(wake(0, 9, 2_000));    // at the very start of the run: a wait of 0, still a wait
        m.runs.add(run(0, 9, 2_000, 10, RunEvent.END_PARKED));
        ThreadAnalysis a = analyse(m, 1);
        ThreadAnalysis.Row r = row(a, 9);
        assertEquals(3, r.waits);
        assertEquals(150 + 300, r.runnableNanos);
        assertEquals(300, r.longestWait);
        assertEquals(1, a.runsWithoutWake, "the first run");
        assertArrayEquals(new long[]{1, 1}, java.util.Arrays.copyOfRange(a.latency.all.counts, 0, 2),
                "the 0 ns wait below 100 ns, the 150 ns one in 100-200 ns");
    }

    @Test
    void wakeUpsWithNoRunAfterThemAndTasksThatAreNotVirtualThreadsAddNothing() {
        TraceModel m = new TraceModel("t");
        m.runs.add(run(0, 5, 0, 10, RunEvent.END_PARKED));
        m.wakes.add(wake(0, 5, 20));                           // still runnable when the recording ended
        m.wakes.add(wake(0, 6, 30));                           // never ran: no row
        m.wakes.add(wake(0, 0, 40));
        m.runs.add(run(0, 0, 50, 10, RunEvent.END_UNKNOWN));   // not a virtual thread
        ThreadAnalysis a = analyse(m, 1);
        assertEquals(List.of(5L), a.rows.stream().map(r -> r.virtualThread).toList());
        assertEquals(2, a.wakesWithoutRun);
        assertEquals(1, a.otherTaskRuns);
        assertEquals(1, a.runsWithoutWake);
        assertEquals(0, a.latency.overall.count());
        assertEquals(-1, a.longestWaitProcessor);
    }

    @Test
    void anEndKindBeyondTheUsualFourGetsItsOwnColumn() {
        TraceModel m = new TraceModel("t");
        m.runs.add(run(0, 5, 0, 10, RunEvent.END_PARKED));
        m.runs.add(run(0, 6, 20, 10, "cancelled"));
        ThreadAnalysis a = analyse(m, 1);
        assertEquals(List.of("parked", "yielded", "preempted", "finished", "cancelled"), a.endKinds);
        assertEquals(0, ended(a, row(a, 5), "cancelled"), "a row made before the kind appeared");
        assertEquals(1, ended(a, row(a, 6), "cancelled"));
    }

    @Test
    void overlappingRunsOfOneThreadWaitZeroRatherThanANegativeTime() {
        TraceModel m = new TraceModel("t");
        m.runs.add(run(0, 5, 0, 100, RunEvent.END_YIELDED));
        m.runs.add(run(1, 5, 90, 10, RunEvent.END_PARKED)); // clock skew between two carriers
        ThreadAnalysis a = analyse(m, 2);
        assertEquals(1, row(a, 5).waits);
        assertEquals(0, row(a, 5).runnableNanos);
    }

    @Test
    void waitsAreCountedOnThePThatRanTheThread() {
        TraceModel m = new TraceModel("t");
        m.wakes.add(wake(0, 5, 0));
        m.runs.add(run(1, 5, 3_000, 10, RunEvent.END_PARKED));   // woken from P0, run by P1 after 3 µs
        m.wakes.add(wake(1, 6, 0));
        m.runs.add(run(0, 6, 400, 10, RunEvent.END_PARKED));
        m.wakes.add(wake(-1, 7, 0));
        m.runs.add(run(0, 7, 450, 10, RunEvent.END_PARKED));
        ThreadAnalysis a = analyse(m, 2);
        LatencyProfile l = a.latency;
        assertEquals(3, l.overall.count());
        assertEquals(2, l.percentilesByP.get(0).count());
        assertEquals(450, l.percentilesByP.get(0).max());
        assertEquals(1, l.percentilesByP.get(1).count());
        assertEquals(3_000, l.percentilesByP.get(1).max());
        assertEquals(1, l.byP.get(1).counts[l.byP.get(1).bucket(3_000)]);
    }
}
