package io.loomgmp.trace;

import io.loomgmp.jfr.testing.SyntheticRecording;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * One recording of {@link SyntheticRecording}, converted once by {@link Main} for every test class
 * in this JVM, under {@code target/trace-fixture} so that the files can be opened after a failure.
 */
final class TraceFixture {
    static final Path DIR = Path.of("target", "trace-fixture").toAbsolutePath();
    static final Path RECORDING = DIR.resolve("synthetic.jfr");
    static final Path JSON = DIR.resolve("trace.json");
    static final Path HTML = DIR.resolve("trace.html");
    private static String stderr;

    private TraceFixture() {
    }

    static synchronized void ensure() throws Exception {
        if (stderr != null) {
            return;
        }
        Files.createDirectories(DIR);
        Files.deleteIfExists(JSON);
        Files.deleteIfExists(HTML);
        SyntheticRecording.record(RECORDING);
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        int status = Main.run(new String[]{RECORDING.toString()}, new PrintStream(out, true, StandardCharsets.UTF_8),
                new PrintStream(err, true, StandardCharsets.UTF_8));
        stderr = err.toString(StandardCharsets.UTF_8);
        if (status != 0) {
            throw new AssertionError("conversion failed with " + status + ": " + stderr);
        }
        String written = out.toString(StandardCharsets.UTF_8);
        if (!written.contains(JSON.toString()) || !written.contains(HTML.toString())) {
            throw new AssertionError("the default output directory is the recording's: " + written);
        }
    }

    static String stderr() throws Exception {
        ensure();
        return stderr;
    }
}
