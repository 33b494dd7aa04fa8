package io.loomgmp.jfr;

import jdk.jfr.Configuration;
import jdk.jfr.EventType;
import jdk.jfr.FlightRecorder;
import jdk.jfr.Recording;
import jdk.jfr.Timespan;
import jdk.jfr.ValueDescriptor;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@code loomgmp.SchedLatency} as JMC sees it: a periodic event, on in both settings files at
 * their periods, read back from a recording made with the tracing settings through a periodic
 * hook like the scheduler's, with labelled fields and its waits as durations.
 */
class SchedLatencyEventTest {
    @TempDir
    static Path dir;

    @Test
    void bothSettingsFilesRecordItPeriodically() throws Exception {
        Configuration alwaysOn = Settings.configuration(Settings.ALWAYS_ON);
        assertEquals("true", alwaysOn.getSettings().get("loomgmp.SchedLatency#enabled"));
        assertEquals("1 s", alwaysOn.getSettings().get("loomgmp.SchedLatency#period"));
        Configuration trace = Settings.configuration(Settings.TRACE);
        assertEquals("true", trace.getSettings().get("loomgmp.SchedLatency#enabled"));
        assertEquals("10 ms", trace.getSettings().get("loomgmp.SchedLatency#period"));
    }

    @Test
    void aPeriodicHookRecordsItWithItsFieldsAsDurations() throws Exception {
        AtomicInteger calls = new AtomicInteger();
        Runnable hook = () -> {
            calls.incrementAndGet();
            SchedLatencyEvent event = new SchedLatencyEvent();
            event.scheduler = "gmp";
            event.source = RunEvent.SOURCE_RUNNEXT;
            event.sampleEvery = 8;
            event.samples = 3;
            event.mean = 40_000;
            event.p50 = 24_576;
            event.p99 = 98_304;
            event.max = 90_000;
            event.histogram = "24576:2 98304:1";
            event.commit();
        };
        Path file = dir.resolve("latency.jfr");
        FlightRecorder.addPeriodicEvent(SchedLatencyEvent.class, hook);
        try (Recording recording = new Recording(Settings.configuration(Settings.TRACE))) {
            recording.start();
            long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
            while (calls.get() < 3 && System.nanoTime() - deadline < 0) {
                Thread.sleep(10); // JFR's periodic thread calls the hook every 10 ms
            }
            recording.stop();
            recording.dump(file);
        } finally {
            FlightRecorder.removePeriodicEvent(hook);
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("loomgmp.SchedLatency")).toList();
        assertTrue(events.size() >= 2, "recorded every period: " + events.size());

        RecordedEvent e = events.getFirst();
        EventType type = e.getEventType();
        assertEquals(List.of("loom-gmp", "Scheduling"), type.getCategoryNames());
        assertNotNull(type.getLabel());
        assertNotNull(type.getDescription());
        assertNull(e.getStackTrace());
        for (ValueDescriptor field : type.getFields()) {
            if (Set.of("startTime", "duration", "eventThread", "stackTrace").contains(field.getName())) {
                continue;
            }
            assertNotNull(field.getLabel(), field.getName() + " label");
            assertNotNull(field.getDescription(), field.getName() + " description");
        }
        for (String timespan : List.of("mean", "p50", "p99", "max")) {
            Timespan unit = type.getField(timespan).getAnnotation(Timespan.class);
            assertEquals(Timespan.NANOSECONDS, unit == null ? null : unit.value(), timespan + " shows as a duration in JMC");
        }
        assertEquals("gmp", e.getString("scheduler"));
        assertEquals("runnext", e.getString("source"));
        assertEquals(8, e.getInt("sampleEvery"));
        assertEquals(3, e.getLong("samples"));
        assertEquals(Duration.ofNanos(98_304), e.getDuration("p99"));
        assertEquals(Duration.ofNanos(90_000), e.getDuration("max"));
        assertEquals("24576:2 98304:1", e.getString("histogram"));
    }
}
