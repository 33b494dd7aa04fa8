package io.loomgmp.trace;

import io.loomgmp.jfr.testing.MiniJson;

import io.loomgmp.jfr.testing.SyntheticRecording;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * trace.json of the synthetic recording, parsed as any consumer would and checked against the
 * Chrome Trace Event format's rules (complete slices have ts/dur/pid/tid and nest per thread,
 * flows pair up and bind to slices, metadata names the lanes) and against the scenario.
 */
class ChromeTraceJsonTest {
    static List<Map<String, Object>> events;
    static Map<String, Object> root;

    @BeforeAll
    @SuppressWarnings("unchecked")
    static void load() throws Exception {
        TraceFixture.ensure();
        root = (Map<String, Object>) MiniJson.parse(Files.readString(TraceFixture.JSON));
        events = (List<Map<String, Object>>) root.get("traceEvents");
    }

    @Test
    void topLevelIsTheObjectFormWithNanosecondDisplay() {
        assertEquals("ns", root.get("displayTimeUnit"));
        assertNotNull(events);
        assertFalse(events.isEmpty());
        for (Map<String, Object> e : events) {
            assertTrue(Set.of("X", "i", "C", "M", "s", "f").contains(e.get("ph")), "phase: " + e);
            assertTrue(e.get("name") instanceof String, "name: " + e);
            assertTrue(e.get("pid") instanceof BigDecimal, "pid: " + e);
            if (!"M".equals(e.get("ph"))) {
                assertTrue(nanos(e, "ts") >= 0, "ts from the first event on: " + e);
            }
        }
    }

    @Test
    void everyCompleteSliceHasTsDurPidTidAndSlicesNestPerThread() {
        Map<String, List<long[]>> byThread = new TreeMap<>();
        for (Map<String, Object> e : events) {
            if (!"X".equals(e.get("ph"))) continue;
            for (String key : List.of("ts", "dur", "pid", "tid")) {
                assertTrue(e.get(key) instanceof BigDecimal, key + " in " + e);
            }
            assertTrue(nanos(e, "dur") >= 0, "dur: " + e);
            byThread.computeIfAbsent(thread(e), k -> new ArrayList<>())
                    .add(new long[]{nanos(e, "ts"), nanos(e, "ts") + nanos(e, "dur")});
        }
        assertTrue(byThread.size() >= 3, "slices on several lanes: " + byThread.keySet());
        for (Map.Entry<String, List<long[]>> lane : byThread.entrySet()) {
            List<long[]> slices = lane.getValue();
            slices.sort(Comparator.<long[]>comparingLong(s -> s[0]).thenComparing(s -> -s[1]));
            List<long[]> open = new ArrayList<>();
            for (long[] s : slices) {
                while (!open.isEmpty() && open.getLast()[1] <= s[0]) open.removeLast();
                if (!open.isEmpty() && s[1] > open.getLast()[1]) {
                    fail("slices overlap without nesting on " + lane.getKey() + ": [" + open.getLast()[0] + ", "
                            + open.getLast()[1] + "] and [" + s[0] + ", " + s[1] + "] ns");
                }
                open.add(s);
            }
        }
    }

    @Test
    void metadataNamesTheSectionsAndLanesLikeGoToolTrace() {
        Map<String, String> processes = new HashMap<>();
        Map<String, String> threads = new HashMap<>();
        for (Map<String, Object> e : events) {
            if (!"M".equals(e.get("ph"))) continue;
            @SuppressWarnings("unchecked") Map<String, Object> args = (Map<String, Object>) e.get("args");
            if (e.get("name").equals("process_name")) processes.put(e.get("pid").toString(), (String) args.get("name"));
            if (e.get("name").equals("thread_name")) threads.put(thread(e), (String) args.get("name"));
        }
        assertEquals(Map.of("1", "Stats", "2", "Procs", "3", "Carriers"), processes);
        assertEquals("Proc 0", threads.get("2/0"));
        assertEquals("Proc 1", threads.get("2/1"));
        assertEquals("Sysmon", threads.get("2/" + Timeline.SYSMON_TID));
        assertEquals("Other threads", threads.get("2/" + Timeline.OTHER_TID));
        assertTrue(threads.values().stream().anyMatch(n -> n.startsWith("gmp-M1 (#")), "carrier lanes: " + threads);
        for (Map<String, Object> e : events) {
            if (Set.of("X", "i", "s", "f").contains(e.get("ph"))) {
                assertTrue(threads.containsKey(thread(e)), "every lane is named: " + e);
            }
        }
    }

    @Test
    void runsAreSlicesLabelledByVirtualThreadOnTheirP() {
        List<Map<String, Object>> runs = events.stream().filter(e -> "X".equals(e.get("ph")) && "run".equals(e.get("cat")))
                .toList();
        assertEquals(SyntheticRecording.CHAIN + 1, runs.stream().filter(e -> thread(e).equals("2/0")).count());
        assertEquals(SyntheticRecording.STOLEN + 1 + SyntheticRecording.AFTER_HANDOFF,
                runs.stream().filter(e -> thread(e).equals("2/1")).count());
        Map<String, Object> first = runs.stream().filter(e -> e.get("name").equals("VT 100")).findFirst().orElseThrow();
        Map<?, ?> args = (Map<?, ?>) first.get("args");
        assertEquals("local", args.get("source"));
        assertEquals("parked", args.get("end"));
        assertTrue(((String) args.get("carrier")).startsWith("gmp-M0 (#"), "carrier named: " + args);
    }

    @Test
    void theBlockedRunIsCutAtTheHandoffAndContinuesOnItsCarriersLane() {
        Map<String, Object> onP = events.stream().filter(e -> "run".equals(e.get("cat"))
                && e.get("name").equals("VT " + SyntheticRecording.BLOCKED)).findFirst().orElseThrow();
        Map<String, Object> blocked = events.stream().filter(e -> "blocked".equals(e.get("cat"))).findFirst()
                .orElseThrow(() -> new AssertionError("no blocked slice on the carrier's lane"));
        Map<String, Object> handoff = events.stream().filter(e -> "handoff".equals(e.get("cat"))).findFirst().orElseThrow();
        assertEquals("2/" + Timeline.SYSMON_TID, thread(handoff), "hand-offs are on the sysmon lane");
        assertEquals(nanos(handoff, "ts"), nanos(onP, "ts") + nanos(onP, "dur"), "cut at the hand-off");
        assertEquals(nanos(handoff, "ts"), nanos(blocked, "ts"), "blocked from the hand-off on");
        assertEquals("3", blocked.get("pid").toString());
        assertTrue(((Map<?, ?>) onP.get("args")).get("note").toString().contains("the P moved on"));
    }

    @Test
    void instantsMarkStealsPreemptionsAndWakeUps() {
        Map<String, Long> byCategoryAndLane = events.stream().filter(e -> "i".equals(e.get("ph")))
                .peek(e -> assertEquals("t", e.get("s"), "thread-scoped: " + e))
                .collect(Collectors.groupingBy(e -> e.get("cat") + "@" + thread(e), Collectors.counting()));
        assertEquals(1L, byCategoryAndLane.get("steal@2/1"), byCategoryAndLane.toString());
        assertEquals(1L, byCategoryAndLane.get("preempt@2/" + Timeline.SYSMON_TID), "request by sysmon");
        assertEquals(1L, byCategoryAndLane.get("preempt@2/0"), "honoured on P0");
        assertEquals(SyntheticRecording.CHAIN - 1L, byCategoryAndLane.get("wake@2/0"));
        assertEquals(1L, byCategoryAndLane.get("wake@2/" + Timeline.OTHER_TID));
    }

    @Test
    void flowsPairUpAndBindToTheWakingSliceAndTheRunTheyCaused() {
        Map<String, List<Map<String, Object>>> sliceStarts = new HashMap<>();
        for (Map<String, Object> e : events) {
            if ("X".equals(e.get("ph"))) sliceStarts.computeIfAbsent(thread(e), k -> new ArrayList<>()).add(e);
        }
        Map<String, Map<String, Object>> starts = new HashMap<>();
        Map<String, Map<String, Object>> finishes = new HashMap<>();
        for (Map<String, Object> e : events) {
            if ("s".equals(e.get("ph"))) assertTrue(starts.put(e.get("id").toString(), e) == null, "one s per id");
            if ("f".equals(e.get("ph"))) assertTrue(finishes.put(e.get("id").toString(), e) == null, "one f per id");
        }
        assertEquals(starts.keySet(), finishes.keySet(), "every flow start has its finish");
        assertEquals(SyntheticRecording.CHAIN, starts.size(), "29 chain hand-offs and the outside wake-up");
        for (String id : starts.keySet()) {
            Map<String, Object> s = starts.get(id);
            Map<String, Object> f = finishes.get(id);
            assertEquals(s.get("cat"), f.get("cat"));
            assertEquals(s.get("name"), f.get("name"));
            assertEquals("e", f.get("bp"), "the finish binds to the enclosing slice: the run");
            assertTrue(nanos(s, "ts") <= nanos(f, "ts"), "a wake-up precedes its run");
            long from = nanos(s, "ts");
            assertTrue(sliceStarts.get(thread(s)).stream().anyMatch(x -> nanos(x, "ts") <= from
                    && from <= nanos(x, "ts") + nanos(x, "dur")), "the start has a slice around it: " + s);
            long to = nanos(f, "ts");
            assertTrue(sliceStarts.get(thread(f)).stream().anyMatch(x -> "run".equals(x.get("cat"))
                    && nanos(x, "ts") == to), "the finish is at the start of a run: " + f);
        }
        Map<String, Object> outside = starts.values().stream()
                .filter(s -> thread(s).equals("2/" + Timeline.OTHER_TID)).findFirst().orElseThrow();
        Map<String, Object> caused = finishes.get(outside.get("id").toString());
        Map<String, Object> run = sliceStarts.get(thread(caused)).stream()
                .filter(x -> "run".equals(x.get("cat")) && nanos(x, "ts") == nanos(caused, "ts")).findFirst().orElseThrow();
        assertEquals("VT " + SyntheticRecording.OUTSIDE_WOKEN, run.get("name"));
    }

    @Test
    void countersAreInTheStatsSection() {
        Map<String, Long> counters = events.stream().filter(e -> "C".equals(e.get("ph")))
                .peek(e -> assertEquals("1", e.get("pid").toString()))
                .peek(e -> assertTrue(((Map<?, ?>) e.get("args")).values().stream().allMatch(v -> v instanceof BigDecimal)))
                .collect(Collectors.groupingBy(e -> (String) e.get("name"), Collectors.counting()));
        assertEquals(Set.of("Running", "Runnable", "Carriers", "Spinning carriers"), counters.keySet());
        assertTrue(counters.get("Running") >= 2 * 10, "Running steps with the runs: " + counters);
    }

    private static String thread(Map<String, Object> e) {
        return e.get("pid") + "/" + e.get("tid");
    }

    /** A ts or dur in µs with up to three decimals, back to exact nanoseconds. */
    static long nanos(Map<String, Object> e, String key) {
        return ((BigDecimal) e.get(key)).movePointRight(3).longValueExact();
    }
}
