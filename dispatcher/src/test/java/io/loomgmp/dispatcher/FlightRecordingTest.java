package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.LoomSupport;
import io.loomgmp.jfr.Settings;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The scheduler's JFR events, recorded for real with the tracing settings that ship in the
 * jfr-events jar and read back through {@link RecordingFile}: every kind appears, with fields that
 * match what the scheduler did.
 */
class FlightRecordingTest {
    /** Every kind of event the scheduler emits. */
    private static final List<String> KINDS = List.of("loomgmp.Run", "loomgmp.Wake", "loomgmp.Steal", "loomgmp.Preempt",
            "loomgmp.Handoff", "loomgmp.CarrierPark", "loomgmp.CarrierSpin", "loomgmp.SchedTrace");

    /**
     * The scheduler's events of {@code recording} by type, dumped to {@code file} again every
     * 20 ms until each of {@link #KINDS} is there, SchedTrace of {@code scheduler} among them, or
     * {@link #Probe.BOUND} has passed (then the caller's
     * asserts say which kind is missing).
     */
    private static Map<String, List<RecordedEvent>> dumpUntilRecorded(Recording recording, Path file, String scheduler)
            throws Exception {
        long deadline = System.nanoTime() + Probe.BOUND.toNanos();
        while (true) {
            recording.dump(file);
            Map<String, List<RecordedEvent>> byType = RecordingFile.readAllEvents(file).stream()
                    .filter(e -> e.getEventType().getName().startsWith("loomgmp."))
                    .collect(Collectors.groupingBy(e -> e.getEventType().getName()));
            boolean all = byType.keySet().containsAll(KINDS) && byType.get("loomgmp.SchedTrace").stream()
                    .anyMatch(e -> e.getString("scheduler").equals(scheduler));
            if (all || System.nanoTime() - deadline > 0) {
                return byType;
            }
            Thread.sleep(20);
        }
    }

    /** A task with a thread of its own (not started: only its id and state count), as a virtual thread's continuation has. */
    private record Labelled(Thread thread, Runnable body) implements Runnable {
        Labelled(Runnable body) {
            this(new Thread(body), body);
        }

        long id() {
            return thread.threadId();
        }

        @Override
        public void run() {
            body.run();
        }
    }

    @Test
    void aTracingRecordingHoldsEveryEventKindWithTheSchedulersFigures() throws Exception {
        Path file = Files.createTempFile("gmp", ".jfr");
        Map<String, List<RecordedEvent>> byType;
        Set<Long> carrierIds = ConcurrentHashMap.newKeySet();
        Labelled parent;
        long first;
        long last;
        // The scheduler first, as under the agent: it exists before any recording starts.
        try (GmpScheduler s = GmpScheduler.builder().procs(2).timeSlice(Duration.ofMillis(1))
                .name("jfrtest").build()) {
            LoomSupport.taskThread(s, task -> task instanceof Labelled l ? l.thread() : null);
            try (Recording recording = new Recording(Settings.configuration(Settings.TRACE))) {
                recording.start();
                Probe.awaitTrue(() -> FlightRecording.on, Probe.BOUND, s, "the scheduler to see the recording");
                // Runs, wakes, steals: a task fills its P's ring and computes; the other P steals.
                CountDownLatch fanned = new CountDownLatch(200);
                Labelled[] children = new Labelled[200];
                for (int i = 0; i < children.length; i++) {
                    children[i] = new Labelled(() -> {
                        Probe.spin(Duration.ofNanos(50_000));
                        fanned.countDown();
                    });
                }
                Thread ended = Thread.ofPlatform().start(() -> { });
                ended.join();
                parent = new Labelled(ended, () -> {
                    for (Labelled child : children) {
                        s.submit(child, Placement.LOCAL);
                    }
                    Probe.spin(Duration.ofMillis(5));
                });
                first = children[0].id();
                last = children[children.length - 1].id();
                s.execute(parent);
                Probe.await(fanned, Probe.BOUND, s, "the fan-out");
                // Preemption: a runnext chain far longer than the 1 ms time slice and than sysmon's
                // longest sleep (10 ms), which it backs off to after the fan-out's short tasks.
                CountDownLatch chained = new CountDownLatch(1);
                long chainEnd = System.nanoTime() + Duration.ofMillis(100).toNanos();
                Runnable[] chain = new Runnable[1];
                chain[0] = () -> {
                    Probe.spin(Duration.ofNanos(20_000));
                    if (System.nanoTime() - chainEnd < 0) {
                        s.submit(chain[0], Placement.RUNNEXT);
                    } else {
                        chained.countDown();
                    }
                };
                s.execute(chain[0]);
                Probe.await(chained, Probe.BOUND, s, "the runnext chain");
                // A hand-off: one carrier parked inside a task while work waits.
                CountDownLatch release = new CountDownLatch(1);
                CountDownLatch blocking = new CountDownLatch(2);
                for (int i = 0; i < 2; i++) {
                    s.execute(() -> {
                        carrierIds.add(Thread.currentThread().threadId());
                        blocking.countDown();
                        Probe.block(release);
                    });
                }
                Probe.await(blocking, Probe.BOUND, s, "both Ps blocked");
                CountDownLatch probe = new CountDownLatch(1);
                s.execute(probe::countDown);
                Probe.await(probe, Probe.BOUND, s, "the probe behind the blocked carriers");
                release.countDown();
                // The carriers park and SchedTrace (every 10 ms) comes once they are idle: dumped
                // until every kind is there, not after a guessed sleep.
                byType = dumpUntilRecorded(recording, file, "jfrtest");
            }
        } finally {
            Files.deleteIfExists(file);
        }
        for (String type : KINDS) {
            assertTrue(byType.containsKey(type), type + " recorded; got " + byType.keySet());
            assertEquals(List.of("loom-gmp"), byType.get(type).getFirst().getEventType().getCategoryNames().subList(0, 1));
        }

        List<RecordedEvent> runs = byType.get("loomgmp.Run");
        Set<String> sources = runs.stream().map(e -> e.getString("source")).collect(Collectors.toSet());
        assertTrue(sources.containsAll(Set.of("runnext", "local", "stolen", "global")), "run sources " + sources);
        for (RecordedEvent run : runs) {
            int p = run.getInt("processor");
            assertTrue(p == 0 || p == 1, run.toString());
            assertTrue(run.getThread().getJavaName().startsWith("jfrtest-M"), "committed on the carrier: " + run);
            assertEquals(run.getThread().getJavaThreadId(), run.getLong("carrierThread"), run.toString());
        }
        assertTrue(runs.stream().anyMatch(e -> e.getLong("virtualThread") == first && e.getString("end").equals("parked")),
                "the task's thread in Run; a run of a live thread that did not yield ended parked");
        assertTrue(runs.stream().anyMatch(e -> e.getLong("virtualThread") == parent.id() && e.getString("end").equals("finished")),
                "a run whose thread terminated ended finished");
        assertTrue(byType.get("loomgmp.Wake").stream().anyMatch(e -> e.getLong("virtualThread") == last
                && e.getString("placement").equals("local")), "the task's thread and placement in Wake");

        RecordedEvent steal = byType.get("loomgmp.Steal").getFirst();
        assertTrue(steal.getInt("tasks") >= 1 && steal.getInt("thief") != steal.getInt("victim"), steal.toString());

        Set<String> actions = byType.get("loomgmp.Preempt").stream().map(e -> e.getString("action")).collect(Collectors.toSet());
        assertEquals(Set.of("requested", "honoured"), actions);
        assertTrue(byType.get("loomgmp.Preempt").stream().filter(e -> e.getString("action").equals("requested"))
                .allMatch(e -> e.getDuration("sliceNanos").compareTo(Duration.ofMillis(1)) > 0), "longer than the slice");

        RecordedEvent handoff = byType.get("loomgmp.Handoff").stream()
                .filter(e -> carrierIds.contains(e.getLong("fromCarrier"))).findFirst()
                .orElseThrow(() -> new AssertionError("no hand-off from a carrier blocked on the latch " + carrierIds
                        + ": " + byType.get("loomgmp.Handoff")));
        assertTrue(handoff.getLong("toCarrier") != handoff.getLong("fromCarrier") && handoff.getLong("toCarrier") != 0,
                "given to another carrier: " + handoff);
        assertTrue(handoff.getDuration("blockedNanos").toNanos() >= BlockedCheck.HANDOFF_AFTER_NANOS, handoff.toString());

        assertTrue(byType.get("loomgmp.SchedTrace").stream().anyMatch(e -> e.getString("scheduler").equals("jfrtest")
                && e.getInt("procs") == 2 && e.getString("localQueues").split(" ").length == 2), "SchedTrace of jfrtest");
        assertTrue(byType.get("loomgmp.CarrierSpin").stream().anyMatch(e -> e.getBoolean("foundWork")), "a spin that found work");
    }

    /**
     * The periodic {@code loomgmp.SchedLatency} event, recorded with the tracing settings (every
     * 10 ms): a hand-off that waited behind a 100 ms task shows under {@code runnext}, at least
     * that long, and the events of each period add up to what the snapshot counted.
     */
    @Test
    void theSchedLatencyEventShowsTheWaitsOfEachPeriodBySource() throws Exception {
        Path file = Files.createTempFile("gmp-latency", ".jfr");
        Duration wait = Duration.ofMillis(100);
        SchedulerSnapshot last;
        try (GmpScheduler s = GmpScheduler.builder().procs(1).timeSlice(Duration.ofSeconds(60)).name("jfrlatency")
                .latencySample(1).build()) {
            try (Recording recording = new Recording(Settings.configuration(Settings.TRACE))) {
                recording.start();
                Probe.awaitTrue(() -> FlightRecording.on, Probe.BOUND, s, "the scheduler to see the recording");
                CountDownLatch ran = new CountDownLatch(1);
                s.execute(() -> {
                    s.submit(ran::countDown, Placement.RUNNEXT); // waits in runnext behind this task
                    Probe.spin(wait);
                });
                Probe.await(ran, Probe.BOUND, s, "the hand-off");
                last = s.snapshot();
                // Until a period has covered both samples: JFR's periodic thread may run late on a loaded machine.
                Probe.awaitTrue(() -> FlightRecording.latencyEmitted(s.scheduling) != null
                                && FlightRecording.latencyEmitted(s.scheduling).all().count() == 2, Probe.BOUND, s,
                        "a LatencyTotals period covering both tasks");
                recording.stop();
                recording.dump(file);
            }
        }
        List<RecordedEvent> events = RecordingFile.readAllEvents(file).stream()
                .filter(e -> e.getEventType().getName().equals("loomgmp.SchedLatency")
                        && e.getString("scheduler").equals("jfrlatency"))
                .toList();
        Files.delete(file);
        assertTrue(events.stream().anyMatch(e -> e.getString("source").equals("all")), "an event for all sources: " + events);
        assertEquals(List.of("loom-gmp", "Scheduling"), events.getFirst().getEventType().getCategoryNames());
        long allSamples = events.stream().filter(e -> e.getString("source").equals("all")).mapToLong(e -> e.getLong("samples")).sum();
        assertEquals(last.latency().all().count(), allSamples, "the periods add up to the snapshot: " + events);
        assertEquals(2, allSamples, "the submitter and the hand-off");

        RecordedEvent runnext = events.stream().filter(e -> e.getString("source").equals("runnext")).findFirst()
                .orElseThrow(() -> new AssertionError("no runnext event: " + events));
        assertEquals(1, runnext.getLong("samples"));
        assertEquals(1, runnext.getInt("sampleEvery"));
        assertTrue(runnext.getDuration("max").compareTo(wait) >= 0, "waited behind the 100 ms task: " + runnext);
        assertTrue(runnext.getDuration("p99").compareTo(wait) >= 0, runnext.toString());
        assertEquals(runnext.getDuration("p99"), runnext.getDuration("p50"), "one sample");
        assertTrue(runnext.getString("histogram").matches("\\d+:1"), "one bucket, one sample: " + runnext.getString("histogram"));
        long bound = Long.parseLong(runnext.getString("histogram").split(":")[0]);
        assertTrue(bound >= wait.toNanos(), "the bucket's upper bound in ns: " + bound);
        assertTrue(events.stream().noneMatch(e -> !e.getString("source").equals("all") && e.getLong("samples") == 0),
                "sources without samples in a period are left out");
    }

}
