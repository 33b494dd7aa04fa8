package benchapp;

/**
 * A fixed amount of CPU work that never blocks: the {@code /cpu} endpoint of the Jetty benchmark.
 *
 * <p>Outside {@code io.loomgmp.} for the reason given in {@link CpuHogs}: the loom-gmp agent
 * inserts preemption polls at this loop's back-edges, as it would in a user's request handler,
 * so GMP's sysmon can take the carrier back from a long burn. Without the agent (the
 * ForkJoinPool forks) a burn holds its carrier to the end.
 *
 * <p>The work is a fixed number of steps, not a time: both schedulers' forks do the same work
 * per request, however long it takes them.
 */
public final class CpuBurn {
    /** Steps per chunk; a chunk is about 1.5 to 2 µs on a current x86 core. */
    private static final int CHUNK = 1_000;

    private CpuBurn() {
    }

    /** Burns {@code chunks} × {@value #CHUNK} xorshift64 steps from {@code seed}; returns the result so the JIT keeps it. */
    public static long burn(long seed, int chunks) {
        long x = seed == 0 ? 0x9E3779B97F4A7C15L : seed; // xorshift's only fixed point is 0
        for (int c = 0; c < chunks; c++) {
            for (int i = 0; i < CHUNK; i++) { // a dependent chain the JIT cannot fold
                x ^= x << 13;
                x ^= x >>> 7;
                x ^= x << 17;
            }
        }
        return x;
    }
}
