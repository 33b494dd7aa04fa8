package io.loomgmp.metrics;

import io.loomgmp.dispatcher.LatencyTotals;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.function.LongSupplier;

/**
 * The scheduling latency of the last minute or two, for the percentile and maximum gauges, as
 * Micrometer's own timers report their percentiles over a rotating window
 * ({@code distributionStatisticExpiry} 2 minutes, {@code distributionStatisticBufferLength} 3)
 * rather than since the start. The scheduler keeps cumulative histograms, so the window is the
 * difference between the current snapshot and one taken between {@link #EXPIRY} × 2/3 and
 * {@link #EXPIRY} ago: every {@code EXPIRY / 3} a read keeps the current cumulative snapshot,
 * and the oldest of the last {@link #BUFFERS} kept is the base. Until {@link #BUFFERS} are kept
 * (the first {@link #EXPIRY} after the first read), the window is everything since the
 * scheduler started.
 *
 * <p>Any thread; reads are serialised (a gauge read at scrape rate). Holds latency figures
 * only, never the scheduler.
 */
final class LatencyWindow {
    static final Duration EXPIRY = Duration.ofMinutes(2);
    static final int BUFFERS = 3;
    private static final long ROTATE_NANOS = EXPIRY.toNanos() / BUFFERS;

    private final LongSupplier nanoClock;
    /** Cumulative snapshots kept, oldest first; at most {@link #BUFFERS}. */
    private final ArrayDeque<LatencyTotals> kept = new ArrayDeque<>(BUFFERS);
    private long keptAt;
    private boolean started;

    LatencyWindow(LongSupplier nanoClock) {
        this.nanoClock = nanoClock;
    }

    /** The latencies recorded in the window that ends with {@code current}, a cumulative snapshot. */
    synchronized LatencyTotals of(LatencyTotals current) {
        long now = nanoClock.getAsLong();
        if (!started) {
            started = true;
            keptAt = now;
        } else if (now - keptAt >= ROTATE_NANOS) {
            if (kept.size() == BUFFERS) {
                kept.removeFirst();
            }
            kept.addLast(current);
            keptAt = now;
        }
        return kept.size() < BUFFERS ? current : current.minus(kept.peekFirst());
    }
}
