package io.loomgmp.trace;

/**
 * Counts of durations in buckets whose bounds go in 1-2-5 steps (1 µs, 2 µs, 5 µs, 10 µs, ...):
 * even steps on a log scale, with labels a reader takes in at a glance. Bucket {@code i} holds the
 * values below {@code bounds[i]} and not below {@code bounds[i - 1]}; the last bucket holds the
 * values at or above the last bound. Used for run lengths ({@link Summary}) and scheduling
 * latencies ({@link LatencyProfile}).
 */
final class Histogram {
    final long[] bounds;
    final long[] counts;
    long total;

    private Histogram(long[] bounds) {
        this.bounds = bounds;
        this.counts = new long[bounds.length + 1];
    }

    /** Bounds 1-2-5 from {@code first} up to and including {@code last}, both powers of ten in ns. */
    static Histogram oneTwoFive(long first, long last) {
        if (first <= 0 || last < first || !powerOfTen(first) || !powerOfTen(last)) {
            throw new IllegalArgumentException("bounds must be powers of ten, first <= last: " + first + ", " + last);
        }
        int decades = 0;
        for (long d = first; d < last; d *= 10) {
            decades++;
        }
        long[] bounds = new long[3 * decades + 1];
        long[] steps = {1, 2, 5};
        long decade = first;
        for (int i = 0; i < bounds.length; i++) {
            bounds[i] = steps[i % 3] * decade;
            if (i % 3 == 2) {
                decade *= 10;
            }
        }
        return new Histogram(bounds);
    }

    private static boolean powerOfTen(long n) {
        while (n % 10 == 0) {
            n /= 10;
        }
        return n == 1;
    }

    void add(long nanos) {
        counts[bucket(nanos)]++;
        total++;
    }

    int bucket(long nanos) {
        for (int i = 0; i < bounds.length; i++) {
            if (nanos < bounds[i]) {
                return i;
            }
        }
        return bounds.length;
    }

    /** "< 1.0 µs", "1.0 µs – 2.0 µs", ..., "≥ 10.000 s". */
    String label(int i) {
        if (i == 0) return "< " + Describe.duration(bounds[0]);
        if (i == bounds.length) return "≥ " + Describe.duration(bounds[bounds.length - 1]);
        return Describe.duration(bounds[i - 1]) + " – " + Describe.duration(bounds[i]);
    }

    /** The first bucket holding a value, or -1 when there is none. */
    int firstNonEmpty() {
        for (int i = 0; i < counts.length; i++) {
            if (counts[i] > 0) return i;
        }
        return -1;
    }

    /** The last bucket holding a value, or -1 when there is none. */
    int lastNonEmpty() {
        for (int i = counts.length - 1; i >= 0; i--) {
            if (counts[i] > 0) return i;
        }
        return -1;
    }

    long largestCount() {
        long max = 0;
        for (long n : counts) {
            max = Math.max(max, n);
        }
        return max;
    }
}
