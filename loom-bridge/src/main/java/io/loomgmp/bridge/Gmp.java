package io.loomgmp.bridge;

import io.loomgmp.dispatcher.GmpScheduler;

import java.util.Optional;

/** What an application can ask of loom-gmp at run time. */
public final class Gmp {
    private static volatile GmpScheduler installed;

    private Gmp() {
    }

    /**
     * The JVM-wide scheduler that the agent installed, on which every virtual thread runs; empty
     * when the JVM was not started with the loom-gmp agent.
     */
    public static Optional<GmpScheduler> scheduler() {
        return Optional.ofNullable(installed);
    }

    static void install(GmpScheduler scheduler) {
        installed = scheduler;
    }
}
