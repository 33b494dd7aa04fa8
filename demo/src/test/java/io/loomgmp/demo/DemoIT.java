package io.loomgmp.demo;

import org.junit.jupiter.api.Test;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

/** Smoke test of the README's first command, {@code ./loomgmp demo}, with small sizes. */
class DemoIT {
    private static final Path ROOT = Path.of(System.getProperty("loomgmp.root"));

    @Test
    void loomgmpDemoPrintsTheSideBySideTable() throws Exception {
        Path out = Files.createTempFile("demo", ".out");
        Path err = Files.createTempFile("demo", ".err");
        Process process = new ProcessBuilder("bash", ROOT.resolve("loomgmp").toString(), "demo", "--small")
                .directory(ROOT.toFile()).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        if (!process.waitFor(5, TimeUnit.MINUTES)) {
            process.destroyForcibly();
            fail("./loomgmp demo --small did not finish in 5 minutes\n" + Files.readString(err));
        }
        String stdout = Files.readString(out);
        String stderr = Files.readString(err);
        assertEquals(0, process.exitValue(), stdout + stderr);
        assertTrue(stdout.contains("GMP") && stdout.contains("ForkJoinPool"), stdout);
        Pattern number = Pattern.compile(" +\\d+\\.\\d+ +\\d+\\.\\d+ +\\d+\\.\\d+$");
        for (String row : List.of("ping-pong hand-off (ns per round trip)", "skynet, 10,000-leaf tree (ms)",
                "fan-out/fan-in of 1,000 virtual threads (ms)", "1,000 sleepers x 5 x sleep(1 ms): total (ms)",
                "1,000 sleepers x 5 x sleep(1 ms): lateness p99 (ms)")) {
            String line = row(stdout, row);
            assertTrue(number.matcher(line.substring(row.length())).find(), "GMP, FJP and ratio figures: " + line);
        }
        Pattern probeFigures = Pattern.compile(" +\\d+\\.\\d +(\\d+\\.\\d|starved)$");
        List<String> probeRows = new java.util.ArrayList<>(List.of("fairness, 1 x procs hogs: worst lateness of 20 x sleep(1) (ms)",
                "pinned in a class initialiser: fresh thread's latency (ms)"));
        if (System.getProperty("os.name").startsWith("Linux")) {
            probeRows.add("blocked reading a FIFO: fresh thread's latency (ms)"); // Linux only
        }
        for (String row : probeRows) {
            String line = row(stdout, row);
            assertTrue(probeFigures.matcher(line.substring(row.length())).find(), "GMP and FJP figures: " + line);
        }
        // Beside 4 x procs hogs: the figures or "starved" (the bounds are SysmonAcceptanceIT's to check).
        Pattern oversubscribed = Pattern.compile(" +(\\d+\\.\\d|starved) +(\\d+\\.\\d|starved)$");
        for (String row : List.of("fairness, 4 x procs hogs: worst lateness of 20 x sleep(1) (ms)",
                "4 x procs hogs: fresh thread started by a platform thread (ms)")) {
            String line = row(stdout, row);
            assertTrue(oversubscribed.matcher(line.substring(row.length())).find(), "GMP and FJP figures: " + line);
        }
        String carriers = stdout.lines().filter(l -> l.startsWith("carriers seen")).findFirst().orElseThrow();
        assertTrue(carriers.contains("gmp-M*") && carriers.contains("ForkJoinPool-1-worker-*"),
                "each JVM really ran on its scheduler: " + carriers);
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
    }

    private static String row(String stdout, String label) {
        return stdout.lines().filter(l -> l.startsWith(label)).findFirst()
                .orElseThrow(() -> new AssertionError("no row '" + label + "' in\n" + stdout));
    }
}
