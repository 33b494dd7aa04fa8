package io.loomgmp.trace;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * The scheduling latency of a recording, {@code go tool trace}'s scheduler-latency profile: how
 * long virtual threads waited runnable before they ran (each wait as {@link ThreadAnalysis}
 * defines it), for the whole recording and per P (the P that then ran the thread), as histograms
 * in 1-2-5 buckets from 100 ns to 10 s and as exact percentiles.
 */
final class LatencyProfile {
    /** Nearest-rank percentiles of {@code count} waits, in ns; all 0 when there are none. */
    record Percentiles(int count, long p50, long p90, long p99, long max) {
        static final Percentiles NONE = new Percentiles(0, 0, 0, 0, 0);
    }

    final Histogram all = newHistogram();
    final Percentiles overall;
    /** Indexed by P. */
    final List<Histogram> byP = new ArrayList<>();
    final List<Percentiles> percentilesByP = new ArrayList<>();
    /** Waits before runs recorded with no P in 0 to procs - 1: in {@link #all} only. */
    int withoutP;

    private LatencyProfile(long[] waits, int[] processors, int procs) {
        List<long[]> perP = new ArrayList<>();
        int[] sizes = new int[procs];
        for (int p : processors) {
            if (p >= 0 && p < procs) sizes[p]++;
        }
        for (int p = 0; p < procs; p++) {
            perP.add(new long[sizes[p]]);
            byP.add(newHistogram());
        }
        int[] filled = new int[procs];
        for (int i = 0; i < waits.length; i++) {
            all.add(waits[i]);
            int p = processors[i];
            if (p >= 0 && p < procs) {
                perP.get(p)[filled[p]++] = waits[i];
                byP.get(p).add(waits[i]);
            } else {
                withoutP++;
            }
        }
        this.overall = percentiles(waits);
        for (long[] onP : perP) {
            percentilesByP.add(percentiles(onP));
        }
    }

    /** waits[i] ended when a run on P processors[i] started; waits is sorted in place. */
    static LatencyProfile of(long[] waits, int[] processors, int procs) {
        if (waits.length != processors.length) {
            throw new IllegalArgumentException(waits.length + " waits but " + processors.length + " processors");
        }
        return new LatencyProfile(waits, processors, procs);
    }

    private static Histogram newHistogram() {
        return Histogram.oneTwoFive(100, 10_000_000_000L);
    }

    /** Sorts waits in place. */
    static Percentiles percentiles(long[] waits) {
        if (waits.length == 0) {
            return Percentiles.NONE;
        }
        Arrays.sort(waits);
        return new Percentiles(waits.length, rank(waits, 500), rank(waits, 900), rank(waits, 990),
                waits[waits.length - 1]);
    }

    /** The nearest-rank percentile: the smallest value with at least perMille ‰ of the values at or below it. */
    private static long rank(long[] sorted, int perMille) {
        long rank = (perMille * (long) sorted.length + 999) / 1000; // ceil, in integers: no rounding error
        return sorted[(int) Math.max(1, rank) - 1];
    }
}
