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
                "fan-out/fan-in of 1,000 virtual threads (ms)")) {
            String line = stdout.lines().filter(l -> l.startsWith(row)).findFirst()
                    .orElseThrow(() -> new AssertionError("no row '" + row + "' in\n" + stdout));
            assertTrue(number.matcher(line.substring(row.length())).find(), "GMP, FJP and ratio figures: " + line);
        }
        Pattern probeFigures = Pattern.compile(" +\\d+\\.\\d +(\\d+\\.\\d|starved)$");
        for (String row : List.of("fairness: worst lateness of 20 x sleep(1) beside hogs (ms)",
                "pinned in a class initialiser: fresh thread's latency (ms)",
                "blocked reading a FIFO: fresh thread's latency (ms)")) {
            String line = stdout.lines().filter(l -> l.startsWith(row)).findFirst()
                    .orElseThrow(() -> new AssertionError("no probe row '" + row + "' in\n" + stdout));
            assertTrue(probeFigures.matcher(line.substring(row.length())).find(), "GMP and FJP figures: " + line);
        }
        String carriers = stdout.lines().filter(l -> l.startsWith("carriers seen")).findFirst().orElseThrow();
        assertTrue(carriers.contains("gmp-M*") && carriers.contains("ForkJoinPool-1-worker-*"),
                "each JVM really ran on its scheduler: " + carriers);
        Files.deleteIfExists(out);
        Files.deleteIfExists(err);
    }
}
