package io.loomgmp.benchmarks.saturation;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * One cell end to end, without wrk or the agent: the vthread server in a JVM of its own (as the
 * runner starts it), loaded over loopback by the open-loop client for about a second, its CPU
 * time read from its stats port at the window's two ends. It checks that the figures are sane,
 * not how fast anything is: the machine may be loaded.
 */
class SaturationLoopbackIT {
    @TempDir
    Path tmp;

    @Test
    void theVthreadServerAnswersTheOpenLoopAndReportsItsCpu() throws Exception {
        List<String> command = ServerProcess.command(Path.of(System.getProperty("java.home"), "bin", "java"),
                System.getProperty("java.class.path"), Optional.empty(), "vthread", OptionalDouble.empty());
        Path log = tmp.resolve("server.log");
        try (ServerProcess server = ServerProcess.start(command, log)) {
            assertEquals("fjp", server.scheduler(), "no agent: the JDK's scheduler");
            assertTrue(server.stepsPerMicro() > 0, "calibrated at start-up: " + server.stepsPerMicro());

            AtomicReference<ServerStats.Snapshot> before = new AtomicReference<>();
            OpenLoopClient.Settings settings = new OpenLoopClient.Settings(server.port(), "/cpu?us=500", 200, 4, 0.3, 1.0, 10);
            LoadResult result = OpenLoopClient.run(settings, () -> {
                try {
                    before.set(server.stats());
                } catch (Exception e) {
                    throw new IllegalStateException(e);
                }
            });
            ServerStats.Snapshot after = server.stats();
            assertNotNull(before.get(), "the window began");

            assertTrue(result.requests() > 0, result.line());
            assertEquals(200, result.scheduled(), "200/s for 1 s: " + result.line());
            assertEquals(result.scheduled(), result.requests() + result.timeouts() + result.connectErrors()
                            + result.readErrors() + result.writeErrors(),
                    "every request due is answered, timed out or failed: " + result.line());
            assertEquals(0, result.statusErrors(), result.line());
            assertTrue(result.durationMicros() >= 1_000_000 && result.durationMicros() < 11_000_000,
                    "from the window's start to its end, or to the last answer within the timeout: " + result.line());
            assertTrue(0 < result.p50Micros() && result.p50Micros() <= result.p99Micros()
                    && result.p99Micros() <= result.p999Micros() && result.p999Micros() <= result.maxMicros(), result.line());

            long cpu = after.cpuNanos() - before.get().cpuNanos();
            long answered = after.requests() - before.get().requests();
            assertTrue(cpu > 0 && answered > 0, "CPU " + cpu + " ns for " + answered + " answers");
            double cpuPerRequestMicros = cpu / 1e3 / result.requests();
            // 500 µs of work each, plus the server's own costs; generous bounds for a loaded machine.
            assertTrue(cpuPerRequestMicros > 100 && cpuPerRequestMicros < 50_000, cpuPerRequestMicros + " µs per request");
            assertEquals(0, after.inflight(), "nothing left running once the client has its answers");
            assertNull(after.wrongScheduler("fjp"), "every sampled request ran on ForkJoinPool's carriers");
        }
        assertTrue(Files.readString(log).contains(SaturationServer.READY), "the server's output went to its log");
    }
}
