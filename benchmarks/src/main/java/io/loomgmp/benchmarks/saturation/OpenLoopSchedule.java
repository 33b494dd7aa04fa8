package io.loomgmp.benchmarks.saturation;

/**
 * When the open-loop client means to send each request: request {@code i} at
 * {@code start + i / rate}, whatever happened to the requests before it. Latency is measured from
 * that intended time, not from when a connection was free to send it, so a server that falls
 * behind is charged for the wait of every request it delayed (no coordinated omission, the way
 * wrk2 measures).
 *
 * <p>Requests due before {@code start + warmup} warm up and are not recorded; those due in the
 * following {@code window} are measured; none is due after it.
 *
 * @param startNanos  {@link System#nanoTime()} of request 0
 * @param perSecond   requests per second, above 0
 * @param warmupNanos the warm-up, at least 0
 * @param windowNanos the measured window, above 0
 */
record OpenLoopSchedule(long startNanos, double perSecond, long warmupNanos, long windowNanos) {
    OpenLoopSchedule {
        if (!(perSecond > 0) || Double.isInfinite(perSecond) || warmupNanos < 0 || windowNanos <= 0) {
            throw new IllegalArgumentException("rate " + perSecond + "/s, warm-up " + warmupNanos + " ns, window "
                    + windowNanos + " ns: the rate and the window must be above 0, the warm-up at least 0");
        }
    }

    /** When request {@code i} (0, 1, ...) is due. */
    long intendedNanos(long i) {
        return startNanos + (long) Math.floor(i * (1e9 / perSecond));
    }

    long windowStartNanos() {
        return startNanos + warmupNanos;
    }

    long windowEndNanos() {
        return startNanos + warmupNanos + windowNanos;
    }

    /** Whether request {@code i} is measured: due within the window. */
    boolean measured(long i) {
        long due = intendedNanos(i);
        return due - windowStartNanos() >= 0 && due - windowEndNanos() < 0;
    }

    /** Whether request {@code i} is due at all: before the window's end. */
    boolean due(long i) {
        return intendedNanos(i) - windowEndNanos() < 0;
    }

    /** The first request due at or after {@code nanos}. */
    long firstAtOrAfter(long nanos) {
        long i = Math.max(0, (long) Math.ceil((nanos - startNanos) * perSecond / 1e9));
        // The division's rounding can put the estimate one off either way: step to the exact one.
        while (i > 0 && intendedNanos(i - 1) - nanos >= 0) {
            i--;
        }
        while (intendedNanos(i) - nanos < 0) {
            i++;
        }
        return i;
    }

    /** How many requests are due in the window: what a server that keeps up answers there. */
    long measuredCount() {
        return firstAtOrAfter(windowEndNanos()) - firstAtOrAfter(windowStartNanos());
    }
}
