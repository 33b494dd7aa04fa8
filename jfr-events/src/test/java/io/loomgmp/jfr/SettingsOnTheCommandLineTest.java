package io.loomgmp.jfr;

import jdk.jfr.consumer.RecordingFile;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * The flags docs/observability.md gives, run in a fresh JVM: the shipped settings files (from the source
 * tree, the paths {@code ./loomgmp jfc} prints) added to the JDK's default settings with a second
 * {@code settings=} on {@code -XX:StartFlightRecording}.
 */
class SettingsOnTheCommandLineTest {
    private static final Path JFC_DIR = Path.of(System.getProperty("loomgmp.jfc.dir",
            "src/main/resources/io/loomgmp/jfr"));

    @TempDir
    Path dir;

    /** Commits one of each event, then exits; JFR writes the recording on exit. */
    public static final class EmitOneOfEach {
        public static void main(String[] args) {
            RunEvent run = new RunEvent();
            run.begin();
            run.end();
            if (run.shouldCommit()) {
                run.source = RunEvent.SOURCE_LOCAL;
                run.commit();
            }
            new StealEvent().commit();
            new WakeEvent().commit();
            PreemptEvent preempt = new PreemptEvent();
            preempt.action = PreemptEvent.ACTION_REQUESTED;
            preempt.commit();
            new HandoffEvent().commit();
        }
    }

    @Test
    void defaultPlusTheTracingFileRecordsTheRunsAndTheJdksOwnEvents() throws Exception {
        Set<String> names = record("settings=default,settings=" + JFC_DIR.resolve(Settings.TRACE));
        assertTrue(names.containsAll(Set.of("loomgmp.Run", "loomgmp.Steal", "loomgmp.Wake", "loomgmp.Preempt",
                "loomgmp.Handoff")), names.toString());
        assertTrue(names.contains("jdk.JVMInformation"), "the default settings still apply: " + names);
    }

    @Test
    void defaultPlusTheAlwaysOnFileRecordsOnlyTheCheapEvents() throws Exception {
        Set<String> names = record("settings=default,settings=" + JFC_DIR.resolve(Settings.ALWAYS_ON));
        assertEquals(Set.of("loomgmp.Preempt", "loomgmp.Handoff"),
                names.stream().filter(n -> n.startsWith("loomgmp.")).collect(Collectors.toSet()));
    }

    private Set<String> record(String settings) throws Exception {
        Path file = dir.resolve("rec.jfr");
        Path log = dir.resolve("jvm.log");
        String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
        String classPath = Path.of("target", "classes").toAbsolutePath() + File.pathSeparator
                + Path.of("target", "test-classes").toAbsolutePath();
        Process process = new ProcessBuilder(java, "-XX:StartFlightRecording:filename=" + file + "," + settings,
                "-cp", classPath, EmitOneOfEach.class.getName())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
        if (!process.waitFor(60, TimeUnit.SECONDS)) {
            process.destroyForcibly();
            fail("the JVM did not exit: " + Files.readString(log));
        }
        assertEquals(0, process.exitValue(), Files.readString(log));
        return RecordingFile.readAllEvents(file).stream().map(e -> e.getEventType().getName())
                .collect(Collectors.toSet());
    }
}
