package io.loomgmp.benchmarks.runner;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.LocalDate;

/**
 * The line that says where and how a report was measured: CPU, cores, JDK, OS, date, run profile.
 * Public for the saturation runner's report ({@code io.loomgmp.benchmarks.saturation}).
 */
public final class Machine {
    private Machine() {
    }

    static String describe(Profile profile, LocalDate date) {
        return cpuModel(Path.of("/proc/cpuinfo")) + ", " + Runtime.getRuntime().availableProcessors() + " cores, JDK "
                + Runtime.version() + " (" + System.getProperty("java.vm.vendor") + "), "
                + System.getProperty("os.name") + " " + System.getProperty("os.version") + "; " + date + ", "
                + profile.describe();
    }

    /** The first "model name" of /proc/cpuinfo (Linux on x86 and most others), or the architecture. */
    public static String cpuModel(Path cpuinfo) {
        try {
            for (String line : Files.readAllLines(cpuinfo)) {
                int colon = line.indexOf(':');
                if (line.startsWith("model name") && colon > 0) {
                    return line.substring(colon + 1).trim().replaceAll("\\s+", " ");
                }
            }
        } catch (IOException | RuntimeException unreadable) {
            // not Linux, or no access: fall through
        }
        return "unknown " + System.getProperty("os.arch") + " CPU";
    }
}
