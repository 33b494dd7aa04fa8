package io.loomgmp.trace;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The layout rules of {@link Timeline}, on hand-made models with exact times. */
class TimelineTest {
    private static final long T = 1_000_000_000_000L; // an arbitrary epoch-nanosecond origin
    private static final long M1 = 31;
    private static final long M2 = 32;

    private static TraceModel.Run run(int p, long carrier, long vt, long start, long duration) {
        return new TraceModel.Run(p, carrier, vt, T + start, duration, "local", "unknown");
    }

    private static TraceModel.Wake wake(int p, long vt, long time) {
        return new TraceModel.Wake(T + time, p, M1, vt, "runnext");
    }

    private static Timeline layOut(TraceModel m) {
        m.sort();
        return Timeline.of(m);
    }

    @Test
    void aHandoffCutsTheBlockedRunAndItsRestMovesToItsCarrier() {
        TraceModel m = new TraceModel("t");
        m.runs.add(run(0, M1, 7, 0, 1_000));
        m.runs.add(run(0, M2, 8, 300, 100));
        m.runs.add(run(0, M2, 9, 500, 100));
        m.handoffs.add(new TraceModel.Handoff(T + 250, 0, M1, M2, 250));
        Timeline t = layOut(m);
        List<Timeline.Slice> p0 = t.procLanes.getFirst().slices;
        assertEquals(3, p0.size());
        assertEquals(T, p0.get(0).start());
        assertEquals(250, p0.get(0).duration(), "cut at the hand-off, not at the next run");
        assertEquals(T + 1_000, p0.get(0).fullEnd());
        assertTrue(p0.get(0).cut());
        assertEquals(1, t.carrierLanes.size());
        Timeline.Lane carrier = t.carrierLanes.getFirst();
        assertEquals(M1, carrier.tid);
        Timeline.Slice blocked = carrier.slices.getFirst();
        assertEquals(Timeline.SliceKind.BLOCKED, blocked.kind());
        assertEquals(T + 250, blocked.start());
        assertEquals(750, blocked.duration());
        assertEquals(1, t.sysmon.marks.size());
    }

    @Test
    void anOverlapWithoutAHandoffIsClockSkewAndOnlyCut() {
        TraceModel m = new TraceModel("t");
        m.runs.add(run(1, M1, 7, 0, 110));
        m.runs.add(run(1, M2, 8, 100, 50));
        Timeline t = layOut(m);
        List<Timeline.Slice> p1 = t.procLanes.get(1).slices;
        assertEquals(100, p1.get(0).duration());
        assertEquals(T + 100, p1.get(1).start());
        assertTrue(t.carrierLanes.isEmpty(), "no blocked time invented");
        assertEquals(2, t.procs);
    }

    @Test
    void theLastWakeUpBeforeARunIsTheOneThatCausedIt() {
        TraceModel m = new TraceModel("t");
        m.runs.add(run(0, M1, 5, 0, 100));    // the waker
        m.wakes.add(wake(0, 6, 20));
        m.wakes.add(wake(0, 6, 60));          // a second unpark before 6 ran
        m.runs.add(run(0, M1, 6, 100, 100));
        m.wakes.add(wake(0, 6, 150));         // woken again while running: leads to its next run
        m.runs.add(run(0, M1, 6, 300, 10));
        m.wakes.add(wake(0, 9, 160));         // never runs in the recording: no arrow
        Timeline t = layOut(m);
        assertEquals(2, t.flows.size());
        Timeline.Flow first = t.flows.get(0);
        assertEquals(T + 60, first.fromTime());
        assertEquals(T + 100, first.toTime());
        assertEquals(T + 150, t.flows.get(1).fromTime());
        assertEquals(T + 300, t.flows.get(1).toTime());
        assertSame(t.procLanes.getFirst(), first.to());
        assertEquals(List.of(1, 2), t.flows.stream().map(Timeline.Flow::id).toList());
    }

    @Test
    void aWakeUpOutsideAnyRunGetsAOneNanosecondAnchorSlice() {
        TraceModel m = new TraceModel("t");
        m.runs.add(run(0, M1, 5, 0, 100));
        m.wakes.add(wake(0, 6, 50));   // inside run 5: its flow starts from that run
        m.wakes.add(wake(0, 7, 100));  // at the run's very end: outside it
        m.wakes.add(wake(-1, 8, 40));  // from a thread with no P
        m.runs.add(run(0, M1, 7, 200, 10));
        m.runs.add(run(0, M1, 8, 300, 10));
        m.runs.add(run(0, M1, 6, 400, 10));
        Timeline t = layOut(m);
        List<Timeline.Slice> p0 = t.procLanes.getFirst().slices;
        assertEquals(List.of(Timeline.SliceKind.RUN, Timeline.SliceKind.WAKE_ANCHOR, Timeline.SliceKind.RUN,
                Timeline.SliceKind.RUN, Timeline.SliceKind.RUN), p0.stream().map(Timeline.Slice::kind).toList());
        assertEquals(T + 100, p0.get(1).start());
        assertEquals(1, p0.get(1).duration());
        assertEquals(1, t.other.slices.size());
        assertEquals(List.of("Sysmon", "Proc 0", "Other threads"),
                t.procSectionLanes().stream().map(l -> l.name).toList());
        assertEquals(3, t.flows.size(), "from inside run 5, from the anchor, from the other threads' lane");
        assertSame(t.other, t.flows.getFirst().from());
    }

    @Test
    void runningCountsThePsInARunAtEachMoment() {
        TraceModel m = new TraceModel("t");
        m.runs.add(run(0, M1, 5, 0, 100));
        m.runs.add(run(1, M2, 6, 50, 100));
        m.runs.add(run(0, M1, 7, 100, 10));
        Timeline t = layOut(m);
        Timeline.Counter running = t.counters.getFirst();
        assertEquals("Running", running.name());
        assertArrayEquals(new long[]{T, T + 50, T + 100, T + 110, T + 150}, running.times());
        assertArrayEquals(new long[]{1, 2, 2, 1, 0}, running.values());
    }

    @Test
    void withoutRunsTheSchedTraceSamplesGiveEveryCounterAndTheNumberOfPs() {
        TraceModel m = new TraceModel("t");
        m.samples.add(new TraceModel.SchedSample(T, "gmp", 4, 1, 5, 1, 1, 0, 7, new int[]{0, 1, 2, 3}, 10, 1, 0, 0));
        m.samples.add(new TraceModel.SchedSample(T + 1_000, "gmp", 4, 4, 5, 0, 4, 0, 0, new int[]{0, 0, 0, 0}, 20, 2, 0, 0));
        Timeline t = layOut(m);
        assertEquals(4, t.procs);
        assertEquals(List.of("Runnable", "Running", "Carriers", "Spinning carriers"),
                t.counters.stream().map(Timeline.Counter::name).toList());
        assertArrayEquals(new long[]{13, 0}, t.counters.get(0).values(), "global plus every local queue");
        assertArrayEquals(new long[]{3, 0}, t.counters.get(1).values(), "busy Ps");
        assertFalse(t.procSectionLanes().contains(t.other), "no outside wake-ups, no lane for them");
    }

    @Test
    void severalSchedulersGetTheirOwnSeries() {
        TraceModel m = new TraceModel("t");
        m.samples.add(new TraceModel.SchedSample(T, "a", 1, 0, 1, 0, 0, 0, 0, new int[]{0}, 0, 0, 0, 0));
        m.samples.add(new TraceModel.SchedSample(T, "b", 2, 0, 2, 0, 0, 0, 0, new int[]{0, 0}, 0, 0, 0, 0));
        Timeline t = layOut(m);
        assertTrue(t.counters.stream().map(Timeline.Counter::name).toList().containsAll(
                List.of("Runnable (a)", "Runnable (b)", "Carriers (a)", "Carriers (b)")));
    }
}
