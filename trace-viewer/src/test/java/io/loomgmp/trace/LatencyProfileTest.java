package io.loomgmp.trace;

import org.junit.jupiter.api.Test;

import java.util.stream.LongStream;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

/** The histograms and percentiles of {@link LatencyProfile}, and the 1-2-5 buckets of {@link Histogram}. */
class LatencyProfileTest {
    @Test
    void bucketsGoInOneTwoFiveStepsWithTheirBoundsInTheUpperBucket() {
        Histogram h = Histogram.oneTwoFive(100, 10_000_000_000L);
        assertEquals(25, h.bounds.length, "8 decades of 3 steps, and 10 s");
        assertArrayEquals(new long[]{100, 200, 500, 1_000, 2_000}, java.util.Arrays.copyOf(h.bounds, 5));
        assertEquals(0, h.bucket(99));
        assertEquals(1, h.bucket(100));
        assertEquals(1, h.bucket(199));
        assertEquals(2, h.bucket(200));
        assertEquals(3, h.bucket(999));
        assertEquals(25, h.bucket(10_000_000_000L), "at or above the last bound: the last bucket");
        assertEquals("< 100 ns", h.label(0));
        assertEquals("100 ns – 200 ns", h.label(1));
        assertEquals("500 ns – 1.0 µs", h.label(3));
        assertEquals("≥ 10.000 s", h.label(25));
        assertThrows(IllegalArgumentException.class, () -> Histogram.oneTwoFive(300, 10_000));
        assertThrows(IllegalArgumentException.class, () -> Histogram.oneTwoFive(1_000, 100));
    }

    @Test
    void percentilesAreNearestRankOverEveryWait() {
        // 1..100 µs: p50 is the 50th value, p90 the 90th, p99 the 99th.
        long[] waits = LongStream.rangeClosed(1, 100).map(i -> (101 - i) * 1_000).toArray();
        LatencyProfile l = LatencyProfile.of(waits, new int[100], 1);
        assertEquals(new LatencyProfile.Percentiles(100, 50_000, 90_000, 99_000, 100_000), l.overall);
        assertEquals(l.overall, l.percentilesByP.getFirst());
        LatencyProfile one = LatencyProfile.of(new long[]{7}, new int[]{0}, 1);
        assertEquals(new LatencyProfile.Percentiles(1, 7, 7, 7, 7), one.overall);
    }

    @Test
    void eachPHasItsOwnHistogramAndWaitsWithoutAPAreInTheWholeOnly() {
        long[] waits = {150, 150, 3_000, 70, 40_000};
        int[] processors = {0, 0, 1, -1, 5};
        LatencyProfile l = LatencyProfile.of(waits, processors, 2);
        assertEquals(5, l.all.total);
        assertEquals(2, l.withoutP);
        assertEquals(2, l.byP.get(0).counts[1], "two waits of 150 ns on P0");
        assertEquals(2, l.byP.get(0).total);
        assertEquals(1, l.byP.get(1).counts[l.byP.get(1).bucket(3_000)]);
        assertEquals(1, l.all.counts[0], "the 70 ns wait with no P");
        assertEquals(new LatencyProfile.Percentiles(2, 150, 150, 150, 150), l.percentilesByP.get(0));
        assertEquals(40_000, l.overall.max());
        assertEquals(LatencyProfile.Percentiles.NONE, LatencyProfile.of(new long[0], new int[0], 3)
                .percentilesByP.get(2));
        assertThrows(IllegalArgumentException.class, () -> LatencyProfile.of(new long[2], new int[1], 1));
    }
}
