package io.loomgmp.trace;

import io.loomgmp.jfr.testing.MiniJson;

import io.loomgmp.jfr.testing.SyntheticRecording;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The packaged viewer as users run it: {@code java -jar trace-viewer/target/loom-gmp-trace.jar}
 * (no other jar on the class path) and {@code ./loomgmp trace} / {@code ./loomgmp jfc}.
 */
class TraceJarIT {
    private static final Path ROOT = Path.of(System.getProperty("loomgmp.root", "..")).toAbsolutePath().normalize();
    private static final Path JAR = ROOT.resolve("trace-viewer/target/loom-gmp-trace.jar");

    @TempDir
    static Path dir;
    static Path recording;

    private record Result(int status, String out, String err) {
    }

    @BeforeAll
    static void record() throws Exception {
        recording = dir.resolve("rec.jfr");
        SyntheticRecording.record(recording);
    }

    private static Result run(List<String> command) throws Exception {
        Path out = Files.createTempFile(dir, "out", ".txt");
        Path err = Files.createTempFile(dir, "err", ".txt");
        Process process = new ProcessBuilder(command).directory(ROOT.toFile())
                .redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(2, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            fail(command + " did not finish in 2 minutes: " + Files.readString(err));
        }
        return new Result(process.exitValue(), Files.readString(out), Files.readString(err));
    }

    private static String java() {
        return Path.of(System.getProperty("java.home"), "bin", "java").toString();
    }

    @Test
    void theVersionedJarIsTheSameRunnableJarAndPrintsItsUsageWithoutArguments() throws Exception {
        Path versioned = ROOT.resolve("trace-viewer/target/trace-viewer-" + System.getProperty("loomgmp.version")
                + "-app.jar");
        assertEquals(Files.size(JAR), Files.size(versioned), versioned + " against " + JAR);
        Result r = run(List.of(java(), "-jar", versioned.toString()));
        assertEquals(2, r.status(), r.err());
        assertTrue(r.err().startsWith("usage: java -jar loom-gmp-trace.jar RECORDING.jfr [-o OUTDIR]"), r.err());
    }

    @Test
    void theJarRunsOnItsOwnAndWritesBesideTheRecording() throws Exception {
        Result r = run(List.of(java(), "-jar", JAR.toString(), recording.toString()));
        assertEquals(0, r.status(), r.err());
        assertEquals(dir.resolve("trace.json") + "\n" + dir.resolve("trace.html") + "\n", r.out());
        MiniJson.parse(Files.readString(dir.resolve("trace.json")));
        assertTrue(Files.readString(dir.resolve("trace.html")).contains("\"name\":\"Proc 0\""));
    }

    @Test
    void theJarExitsOneWithOneLineForAMissingFile() throws Exception {
        Result r = run(List.of(java(), "-jar", JAR.toString(), "no-such.jfr"));
        assertEquals(1, r.status());
        assertEquals("loomgmp trace: no such file: no-such.jfr\n", r.err());
    }

    @Test
    void theLauncherConvertsIntoTheGivenDirectory() throws Exception {
        Path out = dir.resolve("launcher-out");
        Result r = run(List.of("bash", ROOT.resolve("loomgmp").toString(), "trace", recording.toString(), "-o",
                out.toString()));
        assertEquals(0, r.status(), r.err());
        assertTrue(Files.size(out.resolve("trace.json")) > 1000 && Files.size(out.resolve("trace.html")) > 1000);
        assertTrue(r.err().contains("46 runs on 2 Ps"), r.err());
    }

    @Test
    void theLauncherPrintsTheSettingsFilesPaths() throws Exception {
        Result trace = run(List.of("bash", ROOT.resolve("loomgmp").toString(), "jfc"));
        assertEquals(0, trace.status(), trace.err());
        Path jfc = Path.of(trace.out().strip());
        assertEquals("loomgmp-trace.jfc", jfc.getFileName().toString());
        assertTrue(Files.readString(jfc).contains("<event name=\"loomgmp.Run\">"));
        Result always = run(List.of("bash", ROOT.resolve("loomgmp").toString(), "jfc", "always"));
        assertEquals("loomgmp.jfc", Path.of(always.out().strip()).getFileName().toString());
    }
}
