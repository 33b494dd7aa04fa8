package io.loomgmp.trace;

import io.loomgmp.jfr.testing.MiniJson;

import io.loomgmp.jfr.testing.SyntheticRecording;
import io.loomgmp.testsupport.Fork;
import io.loomgmp.testsupport.Forked;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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

    @BeforeAll
    static void record() throws Exception {
        recording = dir.resolve("rec.jfr");
        SyntheticRecording.record(recording);
    }

    /** {@code command} from the checkout, within the shared fork helper's bound. */
    private static Forked run(List<String> command) {
        return Fork.command(command).directory(ROOT).run();
    }

    private static String java() {
        return Fork.javaExecutable().toString();
    }

    @Test
    void theVersionedJarIsTheSameRunnableJarAndPrintsItsUsageWithoutArguments() throws Exception {
        Path versioned = ROOT.resolve("trace-viewer/target/trace-viewer-" + System.getProperty("loomgmp.version")
                + "-app.jar");
        assertEquals(Files.size(JAR), Files.size(versioned), versioned + " against " + JAR);
        Forked r = run(List.of(java(), "-jar", versioned.toString()));
        assertEquals(2, r.exitCode(), r.stderr());
        assertTrue(r.stderr().startsWith("usage: java -jar loom-gmp-trace.jar RECORDING.jfr [-o OUTDIR]"), r.stderr());
    }

    @Test
    void theJarRunsOnItsOwnAndWritesBesideTheRecording() throws Exception {
        Forked r = run(List.of(java(), "-jar", JAR.toString(), recording.toString()));
        assertEquals(0, r.exitCode(), r.stderr());
        assertEquals(dir.resolve("trace.json") + "\n" + dir.resolve("trace.html") + "\n", r.stdout());
        MiniJson.parse(Files.readString(dir.resolve("trace.json")));
        assertTrue(Files.readString(dir.resolve("trace.html")).contains("\"name\":\"Proc 0\""));
    }

    @Test
    void theJarExitsOneWithOneLineForAMissingFile() throws Exception {
        Forked r = run(List.of(java(), "-jar", JAR.toString(), "no-such.jfr"));
        assertEquals(1, r.exitCode());
        assertEquals("loomgmp trace: no such file: no-such.jfr\n", r.stderr());
    }

    @Test
    void theLauncherConvertsIntoTheGivenDirectory() throws Exception {
        Path out = dir.resolve("launcher-out");
        Forked r = run(List.of("bash", ROOT.resolve("loomgmp").toString(), "trace", recording.toString(), "-o",
                out.toString()));
        assertEquals(0, r.exitCode(), r.stderr());
        assertTrue(Files.size(out.resolve("trace.json")) > 1000 && Files.size(out.resolve("trace.html")) > 1000);
        assertTrue(r.stderr().contains("46 runs on 2 Ps"), r.stderr());
    }

    @Test
    void theLauncherPrintsTheSettingsFilesPaths() throws Exception {
        Forked trace = run(List.of("bash", ROOT.resolve("loomgmp").toString(), "jfc"));
        assertEquals(0, trace.exitCode(), trace.stderr());
        Path jfc = Path.of(trace.stdout().strip());
        assertEquals("loomgmp-trace.jfc", jfc.getFileName().toString());
        assertTrue(Files.readString(jfc).contains("<event name=\"loomgmp.Run\">"));
        Forked always = run(List.of("bash", ROOT.resolve("loomgmp").toString(), "jfc", "always"));
        assertEquals("loomgmp.jfc", Path.of(always.stdout().strip()).getFileName().toString());
    }
}
