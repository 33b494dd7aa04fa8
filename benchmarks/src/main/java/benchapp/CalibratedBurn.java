package benchapp;

import java.util.concurrent.atomic.LongAdder;

/**
 * CPU work measured in microseconds: the {@code /cpu} and {@code /hog} endpoints of the
 * saturation benchmark's servers.
 *
 * <p>Outside {@code io.loomgmp.} for the reason given in {@link CpuHogs}: the loom-gmp agent
 * inserts preemption polls at this loop's back-edges, as it would in a user's request handler.
 *
 * <p>The loop counts steps, not time, so that a request does the same work on both schedulers
 * however long it waits for a core; {@link #calibrate()} measures once how many steps make a
 * microsecond on this machine. The saturation runner takes the first server's calibration and
 * gives it to every later server, so that every cell of a run does the same work per request.
 */
public final class CalibratedBurn {
    /** xorshift64's only fixed point is 0; any other seed works. */
    private static final long SEED = 0x9E3779B97F4A7C15L;

    /** How much work {@link #burnMicros} does between two counts, µs. */
    public static final long REPORT_EVERY_MICROS = 1_000;

    private final double stepsPerMicro;

    private CalibratedBurn(double stepsPerMicro) {
        if (!(stepsPerMicro > 0) || Double.isInfinite(stepsPerMicro)) {
            throw new IllegalArgumentException("steps per microsecond must be positive, not " + stepsPerMicro);
        }
        this.stepsPerMicro = stepsPerMicro;
    }

    /** A burn of {@code stepsPerMicro} steps per microsecond (a calibration made earlier). */
    public static CalibratedBurn of(double stepsPerMicro) {
        return new CalibratedBurn(stepsPerMicro);
    }

    /**
     * Measures this core's speed on the calling thread (a platform thread, before the server takes
     * load): about 0.4 s of warm-up so that the JIT compiles the loop, then the fastest of 15 runs of
     * 20 ms. The fastest, not the mean: another process on the machine can only make a run slower,
     * and the figure should describe the core, not the moment.
     */
    public static CalibratedBurn calibrate() {
        long steps = 100_000;
        long sink = 0;
        long warmUntil = System.nanoTime() + 400_000_000L;
        while (System.nanoTime() - warmUntil < 0) {
            sink += steps(SEED + sink, steps);
        }
        // Runs of about 20 ms: long enough to dwarf the clock's cost, short enough that most of
        // them miss a time slice given to another process.
        long start = System.nanoTime();
        sink += steps(SEED + sink, steps);
        long took = Math.max(1, System.nanoTime() - start);
        steps = Math.max(1_000, steps * 20_000_000L / took);
        double best = 0;
        for (int run = 0; run < 15; run++) {
            start = System.nanoTime();
            sink += steps(SEED + sink, steps);
            took = Math.max(1, System.nanoTime() - start);
            best = Math.max(best, steps * 1_000.0 / took);
        }
        if (sink == 42) { // never true in practice: keeps the JIT from dropping the runs' results
            System.out.print("");
        }
        return new CalibratedBurn(best);
    }

    public double stepsPerMicro() {
        return stepsPerMicro;
    }

    /**
     * Burns about {@code micros} µs of CPU from {@code seed} and returns the result, which the
     * caller must use (it goes in the response); adds to {@code stepsDone} as the work is done,
     * after each {@value #REPORT_EVERY_MICROS} µs of it and after the last part. The saturation
     * benchmark reads these counts at the ends of its window, so that a request's work counts in
     * the window it was done in, whether or not the request ends in it (a 100 ms hog that a fair
     * scheduler runs by turns may end long after the window it mostly ran in). The parts are one
     * chain of steps: the result is {@code steps(seed, total)}'s.
     */
    public long burnMicros(long micros, long seed, LongAdder stepsDone) {
        long total = Math.round(micros * stepsPerMicro);
        long part = Math.max(1, Math.round(REPORT_EVERY_MICROS * stepsPerMicro));
        long x = seed;
        long done = 0;
        do { // at least once: with no work, steps(seed, 0) still replaces a seed of 0
            long steps = Math.min(part, total - done);
            x = steps(x, steps);
            stepsDone.add(steps);
            done += steps;
        } while (done < total);
        return x;
    }

    /** {@code count} xorshift64 steps: a dependent chain that the JIT can neither fold nor vectorise. */
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
