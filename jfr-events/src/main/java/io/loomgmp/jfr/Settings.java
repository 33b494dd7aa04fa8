package io.loomgmp.jfr;

import jdk.jfr.Configuration;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.text.ParseException;
import java.util.Objects;

/**
 * The two JFR settings files that ship in this jar, for recordings started from code
 * ({@code new Recording(Settings.configuration(Settings.TRACE))}) and for extracting them to a
 * file that {@code -XX:StartFlightRecording:settings=<path>} can name
 * ({@code java -jar loom-gmp-trace.jar --print-jfc trace > loomgmp-trace.jfc}). In the source
 * tree they are {@code jfr-events/src/main/resources/io/loomgmp/jfr/*.jfc}, which is what
 * {@code ./loomgmp jfc} prints.
 */
public final class Settings {
    /** Always-on: preemptions, hand-offs, schedtrace and scheduling latency every 1 s. */
    public static final String ALWAYS_ON = "loomgmp.jfc";
    /** Tracing: adds runs, steals, wakes, carrier parks and spins; schedtrace and scheduling latency every 10 ms. */
    public static final String TRACE = "loomgmp-trace.jfc";

    private Settings() {
    }

    /** The text of {@link #ALWAYS_ON} or {@link #TRACE}. */
    public static String text(String fileName) {
        if (!fileName.equals(ALWAYS_ON) && !fileName.equals(TRACE)) {
            throw new IllegalArgumentException("no loom-gmp settings file named " + fileName
                    + " (expected " + ALWAYS_ON + " or " + TRACE + ")");
        }
        try (InputStream in = Objects.requireNonNull(Settings.class.getResourceAsStream(fileName),
                () -> fileName + " is missing from the jar")) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@link #ALWAYS_ON} or {@link #TRACE} parsed as a JFR configuration. */
    public static Configuration configuration(String fileName) {
        try {
            return Configuration.create(new StringReader(text(fileName)));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        } catch (ParseException e) {
            throw new IllegalStateException(fileName + " in the jar is not a valid JFR configuration", e);
        }
    }
}
