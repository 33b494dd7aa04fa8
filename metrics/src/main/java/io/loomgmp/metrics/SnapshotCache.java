package io.loomgmp.metrics;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;

import java.util.function.LongSupplier;

/**
 * The last snapshot of a scheduler, reused while it is younger than a maximum age, so that a
 * registry scrape, which reads every meter back to back, takes one snapshot rather than one per
 * meter (a snapshot reads every P's counters and allocates a list).
 *
 * <p>Any thread. The snapshot and its time are published together in one immutable record
 * through a volatile field; two threads that find it stale at once both take a snapshot and the
 * later write wins, which costs one extra snapshot and loses nothing. It holds no reference to
 * the scheduler (a snapshot holds only figures), so meters that hold the scheduler weakly still
 * let it be collected.
 */
final class SnapshotCache {
    private record Taken(SchedulerSnapshot snapshot, long atNanos) {
    }

    private final long maxAgeNanos;
    private final LongSupplier nanoClock;
    private volatile Taken last;

    /**
     * @param maxAgeNanos how long a snapshot serves; 0 takes a new one at every read
     * @param nanoClock   {@link System#nanoTime()} but in tests
     */
    SnapshotCache(long maxAgeNanos, LongSupplier nanoClock) {
        if (maxAgeNanos < 0) {
            throw new IllegalArgumentException("maxAgeNanos must not be negative, was " + maxAgeNanos);
        }
        this.maxAgeNanos = maxAgeNanos;
        this.nanoClock = nanoClock;
    }

    /** A snapshot of {@code scheduler} no older than the maximum age. */
    SchedulerSnapshot of(GmpScheduler scheduler) {
        long now = nanoClock.getAsLong();
        Taken taken = last;
        if (taken == null || now - taken.atNanos() >= maxAgeNanos) {
            taken = new Taken(scheduler.snapshot(), now);
            last = taken;
        }
        return taken.snapshot();
    }
}
