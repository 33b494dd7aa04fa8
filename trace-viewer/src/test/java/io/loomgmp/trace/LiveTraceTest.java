package io.loomgmp.trace;

import io.loomgmp.jfr.RunEvent;
import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;

/**
 * What a live trace lists, from a hand-made model with exact times (the streaming itself runs
 * against a real JVM in the demo's {@code TopIT}).
 */
class LiveTraceTest {
    private static final long T = 1_000_000_000_000L;

    private static TraceModel.Run run(int p, long vt, long start, long duration, String end) {
        return new TraceModel.Run(p, 31, vt, T + start, duration, "local", end);
    }

    private static TraceModel.Wake wake(long vt, long time) {
        return new TraceModel.Wake(T + time, 0, 31, vt, "runnext");
    }

    @Test
    void theThreadsThatRanLongestInAllAndThoseWithTheLongestWaits() {
        TraceModel m = new TraceModel("live");
        // VT 1 computes: two long runs, preempted in between (a wait from its own preemption).
        m.runs.add(run(0, 1, 0, 10_000, RunEvent.END_PREEMPTED));
        m.runs.add(run(0, 1, 12_000, 10_000, RunEvent.END_PREEMPTED));
        // VT 2 sleeps: short runs after wake-ups, one of them a long wait.
        m.wakes.add(wake(2, 500));
        m.runs.add(run(1, 2, 600, 50, RunEvent.END_PARKED));
        m.wakes.add(wake(2, 1_000));
        m.runs.add(run(1, 2, 9_000, 50, RunEvent.END_PARKED));
        // VT 3: one short run after a short wait.
        m.wakes.add(wake(3, 2_000));
        m.runs.add(run(1, 3, 2_300, 400, RunEvent.END_FINISHED));
        // VT 4 never waited in the trace: it ran once, woken before it began.
        m.runs.add(run(1, 4, 3_000, 150, RunEvent.END_PARKED));
        // A plain task (no virtual thread): counted apart, in no list.
        m.runs.add(run(1, 0, 4_000, 70, RunEvent.END_UNKNOWN));
        m.nameThread(2, "sleeper-0");

        LiveTrace.Result r = LiveTrace.Result.of(m, 2, 5_000_000_000L, 7, 3);
        assertEquals(5_000_000_000L, r.nanos());
        assertEquals(6, r.runs(), "runs of virtual threads");
        assertEquals(4, r.threads());
        assertEquals(1, r.otherTaskRuns());
        assertEquals(7, r.eventsLeftOut());
        assertEquals(List.of(
                        new LiveTrace.Row(1, null, 20_000, 2, 2_000, 2_000, 1),
                        new LiveTrace.Row(3, null, 400, 1, 300, 300, 1),
                        new LiveTrace.Row(4, null, 150, 1, 0, 0, 0)),
                r.ranLongest(), "three, longest running first");
        assertEquals(List.of(
                        new LiveTrace.Row(2, "sleeper-0", 100, 2, 8_000, 8_100, 2),
                        new LiveTrace.Row(1, null, 20_000, 2, 2_000, 2_000, 1),
                        new LiveTrace.Row(3, null, 400, 1, 300, 300, 1)),
                r.waitedLongest(), "longest single wait first; a thread that never waited is not there");
    }
}
