package io.loomgmp.demo;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** A column of the demo's tables: which scheduler a JVM runs its virtual threads on, and how it is started. */
enum Scheduler {
    GMP("GMP", "gmp-M"),
    FJP("FJP", "ForkJoinPool-");

    final String column;
    private final String carrierPrefix;

    Scheduler(String column, String carrierPrefix) {
        this.column = column;
        this.carrierPrefix = carrierPrefix;
    }

    /** The JVM options that put a JVM's virtual threads on this scheduler. */
    List<String> jvmArgs(Path agent) {
        List<String> args = new ArrayList<>();
        if (this == GMP) {
            args.add("-javaagent:" + agent);
        }
        return args;
    }

    /**
     * Checks a JVM's {@code carriers} figure (e.g. {@code gmp-M*}, comma-separated when several):
     * an agent that stepped aside would otherwise be measured as GMP.
     */
    void checkCarriers(String what, String carriers) throws DemoFailure {
        if (carriers.isEmpty() || !List.of(carriers.split(",")).stream().allMatch(c -> c.startsWith(carrierPrefix))) {
            throw new DemoFailure(what + " on " + column + ": its virtual threads ran on " + (carriers.isEmpty()
                    ? "no carrier it saw" : carriers) + ", not on " + carrierPrefix + "* carriers");
        }
    }
}
