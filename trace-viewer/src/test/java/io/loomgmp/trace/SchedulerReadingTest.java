package io.loomgmp.trace;

import org.junit.jupiter.api.Test;

import javax.management.Attribute;
import javax.management.AttributeList;
import javax.management.openmbean.CompositeData;
import javax.management.openmbean.CompositeDataSupport;
import javax.management.openmbean.CompositeType;
import javax.management.openmbean.OpenType;
import javax.management.openmbean.SimpleType;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A reading from the attributes as JMX hands them over (the P rows as composites, as the MXBean
 * maps its records), and the one-line errors for attributes it lacks or cannot read.
 */
class SchedulerReadingTest {
    private static final String[] ITEMS = {"id", "state", "localQueueLength", "runnext", "tasksRun", "pendingTimers",
            "running", "runningNanos"};
    private static final OpenType<?>[] TYPES = {SimpleType.INTEGER, SimpleType.STRING, SimpleType.INTEGER,
            SimpleType.BOOLEAN, SimpleType.LONG, SimpleType.INTEGER, SimpleType.STRING, SimpleType.LONG};

    private static CompositeData processor(int id, String state, String running, long runningNanos) throws Exception {
        CompositeType type = new CompositeType("ProcessorState", "a P", ITEMS, ITEMS, TYPES);
        return new CompositeDataSupport(type, ITEMS,
                new Object[] {id, state, 2, true, 40L + id, 1, running, runningNanos});
    }

    private static AttributeList attributes(boolean withLatency) throws Exception {
        AttributeList list = new AttributeList();
        Object[] values = {"gmp", 2, 1, 256, false, 3, 1, 1, 1, 0, 4, 2, 100L, 5L, 6L, 7L, 8L, 9L, 10L, 11L, 0L,
                "SCHED 5ms: ...", new CompositeData[] {processor(0, "running", "VT 41 cpu-0", 4_000_000),
                processor(1, "idle", null, -1)}};
        for (int i = 0; i < values.length; i++) {
            list.add(new Attribute(SchedulerReading.REQUIRED.get(i), values[i]));
        }
        if (withLatency) {
            Object[] latency = {64, 1_000L, 12_000L, 3_000_000L, 9_000_000L, 40_000.5};
            for (int i = 0; i < latency.length; i++) {
                list.add(new Attribute(SchedulerReading.LATENCY.get(i), latency[i]));
            }
        }
        return list;
    }

    @Test
    void everyFigureComesFromItsAttribute() throws Exception {
        SchedulerReading r = SchedulerReading.of(123, 456, attributes(true), true);
        assertEquals(123, r.readAtNanos());
        assertEquals(456, r.uptimeMillis());
        assertEquals("gmp", r.name());
        assertEquals(2, r.procs());
        assertEquals(1, r.idleProcs());
        assertEquals(256, r.maxCarriers());
        assertEquals(3, r.carriers());
        assertEquals(4, r.globalQueueLength());
        assertEquals(2, r.pendingTimers());
        assertEquals(100, r.tasksRun());
        assertEquals(5, r.steals());
        assertEquals(6, r.globalGrabs());
        assertEquals(7, r.fairnessTickGrabs());
        assertEquals(8, r.preemptRequests());
        assertEquals(9, r.handoffs());
        assertEquals(10, r.parks());
        assertEquals(11, r.timersFired());
        assertEquals(new SchedulerReading.ProcessorRow(0, "running", 2, true, 40, 1, "VT 41 cpu-0", 4_000_000),
                r.processors().get(0));
        assertNull(r.processors().get(1).running());
        assertEquals(new SchedulerReading.Latency(64, 1_000, 12_000, 3_000_000, 9_000_000, 40_000.5), r.latency());
        assertNull(SchedulerReading.of(1, 1, attributes(false), false).latency(), "an MXBean without latency figures");
    }

    @Test
    void whichAttributesAreMissingAndWhetherTheLatencyIsThere() {
        Set<String> all = new HashSet<>(SchedulerReading.REQUIRED);
        assertEquals(List.of(), SchedulerReading.missing(all));
        assertTrue(!SchedulerReading.hasLatency(all), "before the latency figures");
        all.addAll(SchedulerReading.LATENCY);
        assertTrue(SchedulerReading.hasLatency(all));
        all.remove("Processors");
        all.remove("Steals");
        assertEquals(List.of("Steals", "Processors"), SchedulerReading.missing(all));
    }

    @Test
    void anAttributeMissingOrOfAnotherTypeIsOneLine() throws Exception {
        AttributeList some = attributes(false);
        some.remove(0);
        TraceException missing = assertThrows(TraceException.class, () -> SchedulerReading.of(1, 1, some, true));
        assertEquals("the scheduler's MXBean did not return LatencyMaxNanos, LatencyMeanNanos, LatencyP50Nanos,"
                + " LatencyP99Nanos, LatencySample, LatencySamples, Name", missing.getMessage());
        AttributeList wrong = attributes(false);
        wrong.set(1, new Attribute("Procs", "two"));
        TraceException type = assertThrows(TraceException.class, () -> SchedulerReading.of(1, 1, wrong, false));
        assertEquals("the scheduler's MXBean gave Procs = two, not a Integer", type.getMessage());
    }
}
