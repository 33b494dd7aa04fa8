package io.loomgmp.benchmarks.runner;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class MachineTest {
    @TempDir
    Path dir;

    @Test
    void cpuModelIsTheFirstModelNameOfCpuinfo() throws Exception {
        Path cpuinfo = Files.writeString(dir.resolve("cpuinfo"), """
                processor\t: 0
                vendor_id\t: GenuineIntel
                model name\t: Intel(R) Xeon(R)   Platinum 8375C CPU @ 2.90GHz
                processor\t: 1
                model name\t: something else
                """);
        assertEquals("Intel(R) Xeon(R) Platinum 8375C CPU @ 2.90GHz", Machine.cpuModel(cpuinfo));
    }

    @Test
    void withoutCpuinfoTheArchitectureStands() {
        assertEquals("unknown " + System.getProperty("os.arch") + " CPU", Machine.cpuModel(dir.resolve("none")));
    }

    @Test
    void lineNamesCoresJdkDateAndProfile() {
        String line = Machine.describe(Profile.QUICK, LocalDate.of(2026, 1, 2));
        assertTrue(line.contains(", " + Runtime.getRuntime().availableProcessors() + " cores, JDK " + Runtime.version()), line);
        assertTrue(line.contains("2026-01-02, quick run (1 fork, 2 × 500 ms warm-up, 5 × 500 ms measurement)"), line);
    }
}
