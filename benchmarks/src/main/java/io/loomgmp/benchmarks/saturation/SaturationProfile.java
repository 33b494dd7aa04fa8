package io.loomgmp.benchmarks.saturation;

/**
 * How long each cell of a saturation run is measured, and how many cells there are
 * ({@link Plan}): the default run, {@code --quick} and {@code --smoke}. The times are per cell,
 * beside the server JVM's start (about 1.5 s), and in the hogs shape the drain after the warm-up
 * (the hogs the warm-up left running must end first: several seconds on 2 cores).
 */
enum SaturationProfile {
    /** 40 cells: every shape on both servers, 3 connection levels; about 12 minutes on 2 cores. */
    FULL("full", 4, 10),
    /** 18 cells: fewer connection levels, most shapes on the vthread server only; about 2.5 minutes. */
    QUICK("quick", 2, 3),
    /** 10 cells: one tiny cell per shape and scheduler, only shows that everything runs; under a minute. */
    SMOKE("smoke", 1, 1);

    final String label;
    final int warmupSeconds;
    final int windowSeconds;

    SaturationProfile(String label, int warmupSeconds, int windowSeconds) {
        this.label = label;
        this.warmupSeconds = warmupSeconds;
        this.windowSeconds = windowSeconds;
    }
}
