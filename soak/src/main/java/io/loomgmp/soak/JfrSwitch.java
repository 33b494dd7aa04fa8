package io.loomgmp.soak;

import io.loomgmp.jfr.Settings;
import jdk.jfr.Recording;
import jdk.jfr.consumer.RecordedEvent;
import jdk.jfr.consumer.RecordingFile;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.SplittableRandom;
import java.util.function.Consumer;

/**
 * Turns JFR on and off in-process: a {@link Recording} with loom-gmp's always-on settings
 * ({@link Settings#ALWAYS_ON}: 2.5 to 5 s) or its tracing settings ({@link Settings#TRACE}: every
 * run, steal, wake and park recorded; 0.3 to 1 s, about one recording in three), then 1 to 6 s
 * off. The first two recordings come at once, one of each, so the warm-up sees both. Each
 * recording is written to a file when it stops, which must hold a {@code loomgmp.SchedTrace} event
 * of the soak's scheduler (both settings record it, every second or every 10 ms), and is then
 * deleted. A recording cut short by the end of a phase is not checked.
 */
final class JfrSwitch extends Driver {
    private static final String SCHED_TRACE = "loomgmp.SchedTrace";

    private final Path directory;
    private final String schedulerName;
    private final Consumer<String> state;
    private int count;

    /**
     * @param directory where recordings are written, briefly
     * @param state told what is recording now ({@code always-on}, {@code trace} or {@code off}), for the progress lines
     */
    JfrSwitch(Path directory, String schedulerName, Consumer<String> state, Ledger ledger, SplittableRandom random) {
        super("jfr", ledger, random);
        this.directory = directory;
        this.schedulerName = schedulerName;
        this.state = state;
    }

    @Override
    void step() throws Exception {
        pauseMillis(count < 2 ? 100 : 1_000, count < 2 ? 300 : 6_000);
        if (stopping()) {
            return;
        }
        boolean trace = count == 0 || count > 1 && random.nextInt(3) == 0;
        String settings = trace ? Settings.TRACE : Settings.ALWAYS_ON;
        Path file = directory.resolve("soak-" + count++ + ".jfr");
        long length = trace ? random.nextLong(300, 1_000) : random.nextLong(2_500, 5_000);
        long start = System.nanoTime();
        try (Recording recording = new Recording(Settings.configuration(settings))) {
            recording.setName("soak " + settings);
            recording.setDestination(file);
            recording.start();
            state.accept(trace ? "trace" : "always-on");
            pause(length * 1_000_000);
            recording.stop();
        } finally {
            state.accept("off");
        }
        boolean whole = (System.nanoTime() - start) / 1_000_000 >= length;
        (trace ? ledger.traceRecordings : ledger.alwaysOnRecordings).increment();
        try {
            if (whole && !holdsSchedTrace(file)) {
                ledger.violation(Ledger.Violation.JFR, "a " + length + " ms recording with " + settings + " held no "
                        + SCHED_TRACE + " event of scheduler " + schedulerName);
            }
        } finally {
            Files.deleteIfExists(file);
        }
    }

    /** Reads the recording up to the first SchedTrace event of the soak's scheduler. */
    private boolean holdsSchedTrace(Path file) throws java.io.IOException {
        try (RecordingFile recording = new RecordingFile(file)) {
            while (recording.hasMoreEvents()) {
                RecordedEvent event = recording.readEvent();
                if (event.getEventType().getName().equals(SCHED_TRACE) && schedulerName.equals(event.getString("scheduler"))) {
                    return true;
                }
            }
        }
        return false;
    }
}
