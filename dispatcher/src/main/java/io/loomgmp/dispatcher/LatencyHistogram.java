package io.loomgmp.dispatcher;

import java.util.Arrays;

/**
 * An immutable histogram of scheduling latencies in nanoseconds, in the log-linear layout of Go's
 * runtime {@code timeHistogram}: each power of two is cut into 4 equal buckets, so a bucket is at
 * most a quarter wider than its lower bound, from 1,024 ns (about 1 µs) to 2<sup>34</sup> ns (about
 * 17 s), with one bucket below and one above:
 * <pre>
 * bucket 0        [0, 1024 ns)
 * bucket 1 + 4(e - 10) + s   [(4 + s)·2<sup>e-2</sup>, (5 + s)·2<sup>e-2</sup>)   for e in 10..33, s in 0..3
 * bucket 97       [2<sup>34</sup> ns, ∞)
 * </pre>
 * Besides the bucket counts it carries the exact sum and maximum of what was recorded, so the
 * mean is exact. Percentiles are read from the buckets as the upper bound of the bucket that
 * holds the percentile, capped at the maximum: never below the true value, at most 25 % above.
 *
 * <p>The scheduler's histograms are cumulative since it started, as Go's
 * {@code /sched/latencies:seconds}; {@link #minus} gives the latencies recorded between two
 * snapshots. Of such a difference only the buckets are known, so its maximum is the upper bound
 * of its highest non-empty bucket.
 */
public final class LatencyHistogram {
    /** Powers of two below this many nanoseconds share bucket 0: 1,024 ns. */
    static final int MIN_EXPONENT = 10;
    /** From 2<sup>34</sup> ns (17.2 s) up, everything shares the last bucket. */
    static final int MAX_EXPONENT = 34;
    /** Buckets per power of two: 4, Go's {@code timeHistNumSubBuckets}. */
    static final int SUB_BUCKET_BITS = 2;
    private static final int SUB_BUCKETS = 1 << SUB_BUCKET_BITS;

    /** Number of buckets: one below 1,024 ns, 4 per power of two up to 2<sup>34</sup> ns, one above. */
    public static final int BUCKETS = 2 + (MAX_EXPONENT - MIN_EXPONENT) * SUB_BUCKETS;

    /** Nothing recorded. */
    public static final LatencyHistogram EMPTY = new LatencyHistogram(new long[BUCKETS], 0, 0);

    private final long[] counts;
    private final long count;
    private final long totalNanos;
    private final long maxNanos;

    /** Takes {@code counts} (length {@link #BUCKETS}) as it is: the caller hands it over. */
    LatencyHistogram(long[] counts, long totalNanos, long maxNanos) {
        if (counts.length != BUCKETS) {
            throw new IllegalArgumentException("expected " + BUCKETS + " buckets, got " + counts.length);
        }
        long n = 0;
        for (long c : counts) {
            n += c;
        }
        this.counts = counts;
        this.count = n;
        this.totalNanos = totalNanos;
        this.maxNanos = maxNanos;
    }

    /** The bucket that holds {@code nanos}; a negative value counts as 0. */
    static int bucketOf(long nanos) {
        if (nanos < 1L << MIN_EXPONENT) {
            return 0;
        }
        int exponent = 63 - Long.numberOfLeadingZeros(nanos);
        if (exponent >= MAX_EXPONENT) {
            return BUCKETS - 1;
        }
        int sub = (int) (nanos >>> (exponent - SUB_BUCKET_BITS)) & (SUB_BUCKETS - 1);
        return 1 + (exponent - MIN_EXPONENT) * SUB_BUCKETS + sub;
    }

    /** The least value of {@code bucket}, in nanoseconds. */
    public static long bucketLowerBoundNanos(int bucket) {
        checkBucket(bucket);
        if (bucket == 0) {
            return 0;
        }
        if (bucket == BUCKETS - 1) {
            return 1L << MAX_EXPONENT;
        }
        int exponent = MIN_EXPONENT + (bucket - 1) / SUB_BUCKETS;
        int sub = (bucket - 1) % SUB_BUCKETS;
        return (long) (SUB_BUCKETS + sub) << (exponent - SUB_BUCKET_BITS);
    }

    /**
     * The bound above {@code bucket}, in nanoseconds, exclusive: the next bucket's lower bound;
     * {@link Long#MAX_VALUE} for the last bucket, which has none.
     */
    public static long bucketUpperBoundNanos(int bucket) {
        checkBucket(bucket);
        return bucket == BUCKETS - 1 ? Long.MAX_VALUE : bucketLowerBoundNanos(bucket + 1);
    }

    private static void checkBucket(int bucket) {
        if (bucket < 0 || bucket >= BUCKETS) {
            throw new IndexOutOfBoundsException("bucket " + bucket + " of " + BUCKETS);
        }
    }

    /** Latencies recorded. */
    public long count() {
        return count;
    }

    /** Their sum, in nanoseconds. */
    public long totalNanos() {
        return totalNanos;
    }

    /** The longest, in nanoseconds (0 if none); of a {@link #minus difference}, an upper bound. */
    public long maxNanos() {
        return maxNanos;
    }

    /** The mean, in nanoseconds; 0 if none. */
    public double meanNanos() {
        return count == 0 ? 0 : (double) totalNanos / count;
    }

    /** Latencies recorded in {@code bucket}. */
    public long bucketCount(int bucket) {
        checkBucket(bucket);
        return counts[bucket];
    }

    /** The count of each bucket, by bucket: a copy. */
    public long[] bucketCounts() {
        return counts.clone();
    }

    /**
     * The latency at {@code percentile} (0.5 for the median, 0.99 for p99; Micrometer's form), in
     * nanoseconds: the upper bound of the bucket that holds the value of rank
     * {@code ceil(percentile × count)}, capped at {@link #maxNanos}. So it is never below the true
     * value and at most 25 % above it. 0 if nothing was recorded.
     *
     * @throws IllegalArgumentException if {@code percentile} is not in (0, 1]
     */
    public long percentileNanos(double percentile) {
        if (!(percentile > 0 && percentile <= 1)) {
            throw new IllegalArgumentException("percentile must be in (0, 1], was " + percentile);
        }
        if (count == 0) {
            return 0;
        }
        long rank = Math.clamp((long) Math.ceil(percentile * count), 1, count);
        long seen = 0;
        for (int b = 0; b < BUCKETS; b++) {
            seen += counts[b];
            if (seen >= rank) {
                return Math.min(bucketUpperBoundNanos(b), maxNanos);
            }
        }
        return maxNanos; // not reached: the counts sum to count
    }

    /**
     * The latencies recorded since {@code earlier}, a snapshot of the same histogram taken before
     * this one. Its maximum is the upper bound of its highest non-empty bucket, capped at this
     * one's maximum.
     */
    public LatencyHistogram minus(LatencyHistogram earlier) {
        long[] difference = new long[BUCKETS];
        int highest = -1;
        for (int b = 0; b < BUCKETS; b++) {
            difference[b] = Math.max(0, counts[b] - earlier.counts[b]);
            if (difference[b] > 0) {
                highest = b;
            }
        }
        long max = highest < 0 ? 0 : Math.min(bucketUpperBoundNanos(highest), maxNanos);
        long total = highest < 0 ? 0 : Math.max(0, totalNanos - earlier.totalNanos);
        return new LatencyHistogram(difference, total, max);
    }

    /** This histogram and {@code other} together. */
    public LatencyHistogram plus(LatencyHistogram other) {
        long[] sum = new long[BUCKETS];
        for (int b = 0; b < BUCKETS; b++) {
            sum[b] = counts[b] + other.counts[b];
        }
        return new LatencyHistogram(sum, totalNanos + other.totalNanos, Math.max(maxNanos, other.maxNanos));
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof LatencyHistogram h && totalNanos == h.totalNanos && maxNanos == h.maxNanos
                && Arrays.equals(counts, h.counts);
    }

    @Override
    public int hashCode() {
        return Arrays.hashCode(counts) * 31 + Long.hashCode(totalNanos) * 17 + Long.hashCode(maxNanos);
    }

    /** {@code count=120 p50=12us p99=3.1ms max=4.0ms}, or {@code count=0}. */
    @Override
    public String toString() {
        if (count == 0) {
            return "count=0";
        }
        return "count=" + count + " p50=" + text(percentileNanos(0.5)) + " p99=" + text(percentileNanos(0.99))
                + " max=" + text(maxNanos);
    }

    /**
     * A latency for people: {@code 0us}, {@code 850us}, {@code 12ms}, {@code 3.1ms}, {@code 1.5s}
     * (two significant figures from 1 ms up, whole microseconds below, rounded up so that a
     * figure that is an upper bound stays one).
     */
    static String text(long nanos) {
        if (nanos < 1_000_000) {
            return ceilDiv(nanos, 1_000) + "us";
        }
        if (nanos < 1_000_000_000) {
            return decimal(nanos, 1_000_000) + "ms";
        }
        return decimal(nanos, 1_000_000_000) + "s";
    }

    /** {@code nanos / unit} with one decimal below 10 and none from 10 up, rounded up. */
    private static String decimal(long nanos, long unit) {
        if (nanos < 10 * unit) {
            long tenths = ceilDiv(nanos, unit / 10);
            return tenths % 10 == 0 ? String.valueOf(tenths / 10) : tenths / 10 + "." + tenths % 10;
        }
        return String.valueOf(ceilDiv(nanos, unit));
    }

    private static long ceilDiv(long a, long b) {
        return Math.ceilDiv(Math.max(0, a), b);
    }
}
