package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;

/**
 * One P's scheduling-latency histograms, one per {@link RunSource}, in {@link LatencyHistogram}'s
 * buckets. Striped by P, like Go's per-P {@code timeHistogram} stripes: a latency is recorded by
 * the carrier that holds the P, just before it runs the task, so every stripe has a single writer
 * and recording is a few plain stores, with no atomic read-modify-write and no shared cache line.
 *
 * <h2>Who may call what</h2>
 * {@link #record}: the P's holder only (the handover of a P under the scheduler lock orders one
 * holder's writes before the next holder's). {@link #addTo}: any thread (snapshots).
 *
 * <h2>Memory ordering</h2>
 * The holder writes a latency's maximum and sum with {@code setOpaque} and then its bucket count
 * with {@code setRelease}; a reader reads every bucket count with {@code getAcquire} before it
 * reads the sums and maxima with {@code getOpaque}. So whatever a reader counts, it also sees in
 * the sum and the maximum (they may already include a few later latencies): a snapshot's maximum
 * is never below a value its buckets hold, which keeps {@link LatencyHistogram#percentileNanos}
 * an upper bound. Opaque accesses of a {@code long} are atomic, so no figure is torn.
 *
 * <h2>Failure</h2>
 * Nothing here throws: indices come from {@link RunSource#ordinal} and
 * {@link LatencyHistogram#bucketOf}, which are in range. Making the recorder can run out of
 * memory; {@code RunLoop} reports that and runs the task untimed.
 *
 * <h2>Memory</h2>
 * {@code 6 × 98} counts plus sums and maxima: about 4.8 KB, allocated by the P's holder at its
 * first sample ({@link Processor#latencyRecorder()}), so Ps that never run a sampled task cost
 * nothing.
 */
final class LatencyRecorder {
    private static final VarHandle LONGS = MethodHandles.arrayElementVarHandle(long[].class);
    private static final int SOURCES = RunSource.ALL.length;

    /** Index {@code source.ordinal() * BUCKETS + bucket}. */
    private final long[] counts = new long[SOURCES * LatencyHistogram.BUCKETS];
    private final long[] totals = new long[SOURCES];
    private final long[] maxima = new long[SOURCES];

    /** The P's holder only: {@code source} waited {@code nanos} (a negative value counts as 0). */
    void record(RunSource source, long nanos) {
        long waited = Math.max(0, nanos);
        int s = source.ordinal();
        if (waited > (long) LONGS.getOpaque(maxima, s)) {
            LONGS.setOpaque(maxima, s, waited);
        }
        LONGS.setOpaque(totals, s, (long) LONGS.getOpaque(totals, s) + waited);
        int i = s * LatencyHistogram.BUCKETS + LatencyHistogram.bucketOf(waited);
        LONGS.setRelease(counts, i, (long) LONGS.getOpaque(counts, i) + 1); // after max and total: see the class comment
    }

    /**
     * Any thread. Adds this P's figures into the per-source arrays {@code counts}
     * ({@code [source][bucket]}), {@code totals} and {@code maxima} (taking the larger).
     */
    void addTo(long[][] counts, long[] totals, long[] maxima) {
        for (int s = 0; s < SOURCES; s++) {
            long[] into = counts[s];
            int base = s * LatencyHistogram.BUCKETS;
            for (int b = 0; b < LatencyHistogram.BUCKETS; b++) {
                into[b] += (long) LONGS.getAcquire(this.counts, base + b);
            }
        }
        for (int s = 0; s < SOURCES; s++) { // after every count: see the class comment
            totals[s] += (long) LONGS.getOpaque(this.totals, s);
            maxima[s] = Math.max(maxima[s], (long) LONGS.getOpaque(this.maxima, s));
        }
    }
}
