package example.probes;

import java.util.Arrays;

/** Latencies of answers, in nanoseconds: collected, then read as nearest-rank percentiles. */
final class Latencies {
    private long[] values = new long[1_024];
    private int size;
    private boolean sorted = true;

    void add(long nanos) {
        if (size == values.length) {
            values = Arrays.copyOf(values, size * 2);
        }
        values[size++] = nanos;
        sorted = false;
    }

    int size() {
        return size;
    }

    /** The {@code q}-quantile (0 to 1, nearest rank) in µs; -1 when there is none. */
    long percentileMicros(double q) {
        if (size == 0) {
            return -1;
        }
        if (!sorted) {
            Arrays.sort(values, 0, size);
            sorted = true;
        }
        int rank = (int) Math.ceil(q * size);
        return values[Math.min(size, Math.max(1, rank)) - 1] / 1_000;
    }
}
