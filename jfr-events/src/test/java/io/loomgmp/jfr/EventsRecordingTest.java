package io.loomgmp.jfr;

import io.loomgmp.jfr.testing.SyntheticRecording;
import jdk.jfr.Configuration;
import jdk.jfr.EventType;
import jdk.jfr.Recording;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The events as JMC and the viewer see them: a recording made with the shipped tracing settings,
 * read back through {@link RecordingFile}, holds every loomgmp event type under the loom-gmp
 * category with labelled, described fields and no stack traces; the JDK's default settings and
 * the always-on file record only the cheap events.
 */
class EventsRecordingTest {
    /** Event name to its category path (what JMC's event browser shows as the tree). */
    static final Map<String, List<String>> CATEGORIES = Map.of(
            "loomgmp.Run", List.of("loom-gmp", "Scheduling"),
            "loomgmp.Steal", List.of("loom-gmp", "Scheduling"),
            "loomgmp.Wake", List.of("loom-gmp", "Scheduling"),
            "loomgmp.SchedTrace", List.of("loom-gmp", "Scheduling"),
            "loomgmp.Preempt", List.of("loom-gmp", "sysmon"),
            "loomgmp.Handoff", List.of("loom-gmp", "sysmon"),
            "loomgmp.CarrierPark", List.of("loom-gmp", "Carriers"),
            "loomgmp.CarrierSpin", List.of("loom-gmp", "Carriers"));
    static final Set<String> CHEAP = Set.of("loomgmp.Preempt", "loomgmp.Handoff");

    @TempDir
    static Path dir;
    static List<RecordedEvent> events;

    @BeforeAll
    static void record() throws Exception {
        Path file = dir.resolve("trace.jfr");
        SyntheticRecording.record(file);
        events = RecordingFile.readAllEvents(file);
    }

    @Test
    void everyEventTypeIsRecordedUnderTheLoomGmpCategoryWithoutStackTraces() {
        Map<String, Long> counts = events.stream().filter(e -> e.getEventType().getName().startsWith("loomgmp."))
                .collect(Collectors.groupingBy(e -> e.getEventType().getName(), Collectors.counting()));
        assertEquals(CATEGORIES.keySet(), counts.keySet(), "event types in the recording: " + counts);
        for (RecordedEvent e : events) {
            EventType type = e.getEventType();
            if (!type.getName().startsWith("loomgmp.")) continue;
            assertEquals(CATEGORIES.get(type.getName()), type.getCategoryNames(), type.getName());
            assertNotNull(type.getLabel(), type.getName() + " label");
            assertNotNull(type.getDescription(), type.getName() + " description");
            assertNull(e.getStackTrace(), type.getName() + " must not record a stack trace");
        }
        int runs = SyntheticRecording.CHAIN + 1 + SyntheticRecording.STOLEN + 1 + SyntheticRecording.AFTER_HANDOFF;
        assertEquals(runs, counts.get("loomgmp.Run"), "every committed run is recorded");
        assertEquals(2, counts.get("loomgmp.Preempt"));
        assertEquals(1, counts.get("loomgmp.Handoff"));
        assertEquals(SyntheticRecording.CHAIN, counts.get("loomgmp.Wake"), "29 chain wake-ups and one from outside");
        assertTrue(counts.get("loomgmp.SchedTrace") >= 1, "the periodic hook fired: " + counts);
    }

    @Test
    void everyFieldIsLabelledAndDescribed() {
        for (RecordedEvent e : events) {
            EventType type = e.getEventType();
            if (!type.getName().startsWith("loomgmp.")) continue;
            for (ValueDescriptor field : type.getFields()) {
                if (Set.of("startTime", "duration", "eventThread", "stackTrace").contains(field.getName())) continue;
                assertNotNull(field.getLabel(), type.getName() + "." + field.getName() + " label");
                assertNotNull(field.getDescription(), type.getName() + "." + field.getName() + " description");
            }
        }
    }

    @Test
    void fieldsCarryWhatTheSchedulerSet() {
        RecordedEvent steal = only("loomgmp.Steal");
        assertEquals(1, steal.getInt("thief"));
        assertEquals(0, steal.getInt("victim"));
        assertEquals(SyntheticRecording.STOLEN, steal.getInt("tasks"));
        assertEquals("gmp-M1", steal.getThread().getJavaName());

        RecordedEvent handoff = only("loomgmp.Handoff");
        assertEquals(1, handoff.getInt("processor"));
        assertEquals(threadId("gmp-M1"), handoff.getLong("fromCarrier"));
        assertEquals(threadId("gmp-M2"), handoff.getLong("toCarrier"));
        assertEquals(500_000, handoff.getLong("blockedNanos"));
        assertEquals("gmp-sysmon", handoff.getThread().getJavaName());

        RecordedEvent blocked = events.stream().filter(e -> e.getEventType().getName().equals("loomgmp.Run")
                && e.getLong("virtualThread") == SyntheticRecording.BLOCKED).findFirst().orElseThrow();
        assertEquals(1, blocked.getInt("processor"));
        assertEquals(threadId("gmp-M1"), blocked.getLong("carrierThread"));
        assertEquals("global", blocked.getString("source"));
        assertEquals("finished", blocked.getString("end"));
        assertTrue(blocked.getDuration().toNanos() > 500_000, "a duration event: " + blocked.getDuration());

        RecordedEvent outside = events.stream().filter(e -> e.getEventType().getName().equals("loomgmp.Wake")
                && e.getInt("processor") == -1).findFirst().orElseThrow();
        assertEquals(SyntheticRecording.OUTSIDE_WOKEN, outside.getLong("virtualThread"));
        assertEquals("global", outside.getString("placement"));

        RecordedEvent spin = only("loomgmp.CarrierSpin");
        assertTrue(spin.getBoolean("foundWork"));
        assertEquals(1, spin.getInt("processor"));

        RecordedEvent sample = events.stream().filter(e -> e.getEventType().getName().equals("loomgmp.SchedTrace"))
                .findFirst().orElseThrow();
        assertEquals("gmp", sample.getString("scheduler"));
        assertEquals("2 1", sample.getString("localQueues"));
    }

    @Test
    void theJdkDefaultSettingsRecordOnlyTheCheapEvents() throws Exception {
        assertEquals(CHEAP, namesRecordedWith(Configuration.getConfiguration("default")));
    }

    @Test
    void theAlwaysOnSettingsRecordTheCheapEventsAndSchedTraceEverySecond() throws Exception {
        Configuration alwaysOn = Settings.configuration(Settings.ALWAYS_ON);
        assertEquals("1 s", alwaysOn.getSettings().get("loomgmp.SchedTrace#period"));
        assertEquals("10 ms", Settings.configuration(Settings.TRACE).getSettings().get("loomgmp.SchedTrace#period"));
        assertEquals(CHEAP, namesRecordedWith(alwaysOn));
    }

    /** Commits one of each event (SchedTrace aside: it is periodic) under the given settings. */
    private static Set<String> namesRecordedWith(Configuration configuration) throws Exception {
        Path file = dir.resolve("one-of-each-" + configuration.getName() + ".jfr");
        try (Recording recording = new Recording(configuration)) {
            recording.start();
            RunEvent run = new RunEvent();
            run.begin();
            run.commit();
            new StealEvent().commit();
            new WakeEvent().commit();
            CarrierParkEvent park = new CarrierParkEvent();
            park.begin();
            park.commit();
            CarrierSpinEvent spin = new CarrierSpinEvent();
            spin.begin();
            spin.commit();
            PreemptEvent preempt = new PreemptEvent();
            preempt.action = PreemptEvent.ACTION_REQUESTED;
            preempt.commit();
            new HandoffEvent().commit();
            recording.stop();
            recording.dump(file);
        }
        return RecordingFile.readAllEvents(file).stream().map(e -> e.getEventType().getName())
                .filter(n -> n.startsWith("loomgmp.") && !n.equals("loomgmp.SchedTrace")).collect(Collectors.toSet());
    }

    @Test
    void anUnknownSettingsFileNameIsRefused() {
        IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
                () -> Settings.text("default.jfc"));
        assertTrue(e.getMessage().contains("loomgmp-trace.jfc"), e.getMessage());
        assertFalse(Settings.text(Settings.TRACE).isBlank());
    }

    private static RecordedEvent only(String name) {
        List<RecordedEvent> matching = events.stream().filter(e -> e.getEventType().getName().equals(name)).toList();
        assertEquals(1, matching.size(), name);
        return matching.getFirst();
    }

    private static long threadId(String name) {
        return events.stream().filter(e -> e.getThread() != null && name.equals(e.getThread().getJavaName()))
                .map(e -> e.getThread().getJavaThreadId()).findFirst()
                .orElseThrow(() -> new AssertionError("no event from thread " + name));
    }
}
