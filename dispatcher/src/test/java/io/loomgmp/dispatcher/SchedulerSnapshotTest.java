package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.Arrays;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/**
 * A snapshot made by hand, every figure a different number: the typed accessors, the schedtrace
 * line and the dump read each figure from its own {@link SchedulerMetric}, in the formats they
 * had before the figures became an enum.
 */
class SchedulerSnapshotTest {
    /** Figure i is 100 + i, so that a figure read in the place of another shows. */
    private static SchedulerSnapshot numbered() {
        long[] figures = new long[SchedulerMetric.values().length];
        Arrays.setAll(figures, i -> 100 + i);
        List<SchedulerSnapshot.ProcessorSnapshot> ps = List.of(
                new SchedulerSnapshot.ProcessorSnapshot(0, false, 3, true, 7, 9, 2, false, null, -1),
                new SchedulerSnapshot.ProcessorSnapshot(1, true, 0, false, 1, 4, 0, false, null, -1));
        LatencyHistogram[] none = new LatencyHistogram[RunSource.ALL.length];
        Arrays.fill(none, LatencyHistogram.EMPTY);
        return new SchedulerSnapshot("hand", ps, figures, false, LatencyTotals.of(0, none));
    }

    @Test
    void typedAccessorsReadTheirMetric() {
        SchedulerSnapshot s = numbered();
        assertEquals(s.get(SchedulerMetric.PROCS), s.procs());
        assertEquals(s.get(SchedulerMetric.IDLE_PROCS), s.idleProcs());
        assertEquals(s.get(SchedulerMetric.CARRIERS), s.carriers());
        assertEquals(s.get(SchedulerMetric.RUNNING_CARRIERS), s.runningCarriers());
        assertEquals(s.get(SchedulerMetric.SPINNING_CARRIERS), s.spinningCarriers());
        assertEquals(s.get(SchedulerMetric.IDLE_CARRIERS), s.idleCarriers());
        assertEquals(s.get(SchedulerMetric.BLOCKED_CARRIERS), s.blockedCarriers());
        assertEquals(s.get(SchedulerMetric.GLOBAL_QUEUE_LENGTH), s.globalQueueLength());
        assertEquals(s.get(SchedulerMetric.PENDING_TIMERS), s.pendingTimers());
        assertEquals(s.get(SchedulerMetric.TASKS_RUN), s.tasksRun());
        assertEquals(s.get(SchedulerMetric.RUNNEXT_HITS), s.runnextHits());
        assertEquals(s.get(SchedulerMetric.LOCAL_POPS), s.localPops());
        assertEquals(s.get(SchedulerMetric.GLOBAL_GRABS), s.globalGrabs());
        assertEquals(s.get(SchedulerMetric.FAIRNESS_TICK_GRABS), s.fairnessTickGrabs());
        assertEquals(s.get(SchedulerMetric.STEALS), s.steals());
        assertEquals(s.get(SchedulerMetric.STOLEN_TASKS), s.stolenTasks());
        assertEquals(s.get(SchedulerMetric.OVERFLOWS), s.overflows());
        assertEquals(s.get(SchedulerMetric.PARKS), s.parks());
        assertEquals(s.get(SchedulerMetric.SPINS), s.spins());
        assertEquals(s.get(SchedulerMetric.PREEMPT_REQUESTS), s.preemptRequests());
        assertEquals(s.get(SchedulerMetric.HANDOFFS), s.handoffs());
        assertEquals(s.get(SchedulerMetric.TIMERS_FIRED), s.timersFired());
        assertEquals(s.get(SchedulerMetric.FAILURES), s.failures());
    }

    @Test
    void schedtraceLineKeepsGosFormat() {
        SchedulerSnapshot s = numbered();
        assertEquals("SCHED 42ms: gomaxprocs=" + s.procs() + " idleprocs=" + s.idleProcs() + " threads=" + s.carriers()
                        + " spinningthreads=" + s.spinningCarriers() + " idlethreads=" + s.idleCarriers()
                        + " runqueue=" + s.globalQueueLength() + " [4 0] latp50=- latp99=-",
                s.schedtraceLine(42));
    }

    @Test
    void dumpKeepsItsFormat() {
        SchedulerSnapshot s = numbered();
        assertEquals("scheduler hand: procs=" + s.procs() + " idleProcs=" + s.idleProcs() + " carriers=" + s.carriers()
                + " (running=" + s.runningCarriers() + " spinning=" + s.spinningCarriers() + " idle=" + s.idleCarriers()
                + " blocked=" + s.blockedCarriers() + ") globalQueue=" + s.globalQueueLength() + "\n"
                + "  P0 busy local=3 runnext=1 schedtick=7 tasksRun=9 timers=2\n"
                + "  P1 idle local=0 runnext=0 schedtick=1 tasksRun=4 timers=0\n"
                + "  counters: tasksRun=" + s.tasksRun() + " runnextHits=" + s.runnextHits()
                + " localPops=" + s.localPops() + " globalGrabs=" + s.globalGrabs()
                + " fairnessTickGrabs=" + s.fairnessTickGrabs() + " steals=" + s.steals()
                + " stolenTasks=" + s.stolenTasks() + " overflows=" + s.overflows()
                + " parks=" + s.parks() + " spins=" + s.spins()
                + " preemptRequests=" + s.preemptRequests() + " handoffs=" + s.handoffs()
                + " timersFired=" + s.timersFired() + " failures=" + s.failures() + countersAddedSince(s)
                + "\n  latency: not sampled", s.toString());
    }

    /** Counters added after {@code failures} follow it, in the enum's order, as {@code name=value}. */
    private static String countersAddedSince(SchedulerSnapshot s) {
        StringBuilder out = new StringBuilder();
        for (SchedulerMetric m : SchedulerMetric.values()) {
            if (m.ordinal() > SchedulerMetric.FAILURES.ordinal() && m.kind() == SchedulerMetric.Kind.COUNTER) {
                out.append(' ').append(m.figureName()).append('=').append(s.get(m));
            }
        }
        return out.toString();
    }

    @Test
    void aFigureArrayOfAnotherLengthIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SchedulerSnapshot("short", List.of(), new long[3], false,
                numbered().latency()));
    }
}
