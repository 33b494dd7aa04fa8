package io.loomgmp.demo;

import example.probes.FairnessProbe;
import example.probes.ManyPinnedProbe;
import example.probes.PinnedProbe;
import org.junit.jupiter.api.Test;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/**
 * Issue 4's acceptance tests: the sysmon probes in JVMs of their own, every virtual thread on GMP
 * through the agent. The bounds are generous (a loaded 2-core CI machine); the measured figures
 * are what {@code ./loomgmp demo} prints.
 */
class SysmonAcceptanceIT {
    private static final Path ROOT = Path.of(System.getProperty("loomgmp.root"));
    private static final Path AGENT = ROOT.resolve("loom-bridge/target/loom-gmp-agent.jar");
    private static final long FORK_BOUND_SECONDS = 120;

    @Test
    void aProbeSleeping1msTwentyTimesFinishesBesideCpuHogsWithBoundedLateness() throws Exception {
        Probe run = probe(List.of(), FairnessProbe.class);
        assertEquals("true", run.value("probeFinishedWhileHogsRan"), run.toString());
        assertTrue(Long.parseLong(run.value("worstLatenessMicros")) < 100_000, "worst lateness under 100 ms\n" + run);
    }

    @Test
    void aProbeRunsWhileEveryCarrierIsPinnedInAClassInitialiser() throws Exception {
        assertProbeRunsBesidePinnedCarriers("clinit");
    }

    @Test
    void aProbeRunsWhileEveryCarrierIsBlockedReadingAFifo() throws Exception {
        assertProbeRunsBesidePinnedCarriers("fifo");
    }

    @Test
    void aThousandPinnedThreadsStayWithinMaxPoolSizeAndSpareCarriersRetire() throws Exception {
        Probe run = probe(List.of("-Djdk.virtualThreadScheduler.parallelism=2",
                "-Djdk.virtualThreadScheduler.maxPoolSize=32", "-Dgmp.keepalive=500ms"), ManyPinnedProbe.class);
        assertTrue(Long.parseLong(run.value("mostCarriers")) <= 32, "carriers within maxPoolSize\n" + run);
        assertTrue(Long.parseLong(run.value("handoffs")) > 0, "sysmon handed blocked carriers' Ps off\n" + run);
        assertEquals("1000", run.value("completed"), run.toString());
        assertEquals("2", run.value("carriersAfterKeepAlive"), "spare carriers retired\n" + run);
    }

    private static void assertProbeRunsBesidePinnedCarriers(String mode) throws Exception {
        Probe run = probe(List.of(), PinnedProbe.class, mode);
        assertTrue(Long.parseLong(run.value("blockedMillis")) >= 400, "the carriers really were blocked\n" + run);
        assertTrue(Long.parseLong(run.value("probeMicros")) < 50_000, "probe within 50 ms\n" + run);
    }

    /** A probe's output: {@code key=value} lines. */
    private record Probe(List<String> command, int exit, String stdout, String stderr) {
        String value(String key) {
            return stdout.lines().filter(l -> l.startsWith(key + "=")).map(l -> l.substring(key.length() + 1))
                    .findFirst().orElseThrow(() -> new AssertionError("no " + key + "=... in\n" + this));
        }

        @Override
        public String toString() {
            return command + "\nexit " + exit + "\n--- stdout\n" + stdout + "--- stderr\n" + stderr;
        }
    }

    private static Probe probe(List<String> jvmArgs, Class<?> main, String... args) throws Exception {
        assertTrue(Files.isRegularFile(AGENT), "no agent jar at " + AGENT);
        List<String> command = new ArrayList<>();
        command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        command.add("-javaagent:" + AGENT);
        command.addAll(jvmArgs);
        command.add("-cp");
        command.add(System.getProperty("java.class.path"));
        command.add(main.getName());
        command.addAll(List.of(args));
        File out = Files.createTempFile("probe", ".out").toFile();
        File err = Files.createTempFile("probe", ".err").toFile();
        try {
            Process process = new ProcessBuilder(command).redirectOutput(out).redirectError(err).start();
            if (!process.waitFor(FORK_BOUND_SECONDS, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                fail("probe did not finish in " + FORK_BOUND_SECONDS + " s: " + command + "\n" + Files.readString(err.toPath()));
            }
            Probe run = new Probe(command, process.exitValue(), Files.readString(out.toPath()), Files.readString(err.toPath()));
            assertEquals(0, run.exit(), run.toString());
            return run;
        } finally {
            Files.deleteIfExists(out.toPath());
            Files.deleteIfExists(err.toPath());
        }
    }
}
