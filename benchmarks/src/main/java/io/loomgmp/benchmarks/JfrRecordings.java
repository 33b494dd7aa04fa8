package io.loomgmp.benchmarks;

import io.loomgmp.jfr.Settings;
import jdk.jfr.Recording;

/**
 * The JFR recording a cost benchmark runs under: {@code none}, {@code always} (the always-on
 * settings that ship in the jar: preemptions, hand-offs, a schedtrace event per second) or
 * {@code tracing} (adds one event per run, wake, steal, park and spin). Kept on disk with a size
 * cap, as a user's recording would be, so JFR's own threads write it out during the measurement.
 */
final class JfrRecordings {
    private static final long MAX_BYTES = 256L << 20;

    private JfrRecordings() {
    }

    /** Starts the recording named by the benchmark parameter; null for {@code none}. */
    static Recording start(String recording) {
        String settings = switch (recording) {
            case "none" -> null;
            case "always" -> Settings.ALWAYS_ON;
            case "tracing" -> Settings.TRACE;
            default -> throw new IllegalArgumentException("recording=" + recording + ": expected none, always or tracing");
        };
        if (settings == null) {
            return null;
        }
        Recording jfr = new Recording(Settings.configuration(settings));
        jfr.setName("benchmark-" + recording);
        jfr.setMaxSize(MAX_BYTES);
        jfr.start();
        return jfr;
    }

    static void stop(Recording jfr) {
        if (jfr != null) {
            jfr.close();
        }
    }
}
