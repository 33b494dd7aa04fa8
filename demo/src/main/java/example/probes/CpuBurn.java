package example.probes;

/**
 * CPU work counted in steps of a loop, so that a request does the same work on both schedulers
 * however long it waits for a core. {@link #calibrate()} measures once how many steps make a
 * microsecond; the demo calibrates in its own JVM and hands the figure to every JVM it starts, so
 * that GMP's and ForkJoinPool's servers burn the same steps per request.
 *
 * <p>In {@code example.probes}, not {@code io.loomgmp}: the agent inserts its preemption poll at
 * this loop's back-edge, as it does in a user's request handler (the poll's cost is GMP's).
 */
public final class CpuBurn {
    /** xorshift64's only fixed point is 0; any other seed works. */
    private static final long SEED = 0x9E3779B97F4A7C15L;

    private CpuBurn() {
    }

    /**
     * This core's speed in steps per microsecond, measured on the calling thread: about 0.3 s of
     * warm-up so that the JIT compiles the loop, then the fastest of 30 runs of 5 ms. The fastest,
     * not the mean: another process can only make a run slower, and the figure should describe the
     * core, not the moment; runs that short mostly fit between two of the OS's time slices on a
     * busy machine.
     */
    public static double calibrate() {
        long steps = 100_000;
        long sink = 0;
        long warmUntil = System.nanoTime() + 300_000_000L;
        while (System.nanoTime() - warmUntil < 0) {
            sink += steps(SEED + sink, steps);
        }
        long start = System.nanoTime();
        sink += steps(SEED + sink, steps);
        steps = Math.max(1_000, steps * 5_000_000L / Math.max(1, System.nanoTime() - start));
        double best = 0;
        for (int run = 0; run < 30; run++) {
            start = System.nanoTime();
            sink += steps(SEED + sink, steps);
            best = Math.max(best, steps * 1_000.0 / Math.max(1, System.nanoTime() - start));
        }
        if (sink == 42) { // never true in practice: keeps the JIT from dropping the runs' results
            System.out.print("");
        }
        return best;
    }

    /** {@code count} xorshift64 steps from {@code seed}: a dependent chain the JIT can neither fold nor vectorise. */
    static long steps(long seed, long count) {
        long x = seed == 0 ? SEED : seed;
        for (long i = 0; i < count; i++) {
            x ^= x << 13;
            x ^= x >>> 7;
            x ^= x << 17;
        }
        return x;
    }
}
