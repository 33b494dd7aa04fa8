package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicReference;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** {@link LatencyHistogram}'s buckets and figures, and {@link LatencyRecorder} feeding it, also concurrently. */
class LatencyHistogramTest {

    @Test
    void bucketsAreContiguousLogLinearAndCoverOneMicrosecondToSeventeenSeconds() {
        assertEquals(98, LatencyHistogram.BUCKETS);
        assertEquals(0, LatencyHistogram.bucketLowerBoundNanos(0));
        assertEquals(1024, LatencyHistogram.bucketUpperBoundNanos(0));
        // 1,024 ns: the first power of two, cut into 4 buckets of 256 ns.
        assertEquals(1024, LatencyHistogram.bucketLowerBoundNanos(1));
        assertEquals(1280, LatencyHistogram.bucketUpperBoundNanos(1));
        assertEquals(1792, LatencyHistogram.bucketLowerBoundNanos(4));
        assertEquals(2048, LatencyHistogram.bucketUpperBoundNanos(4));
        assertEquals(1L << 34, LatencyHistogram.bucketUpperBoundNanos(96));
        assertEquals(1L << 34, LatencyHistogram.bucketLowerBoundNanos(97));
        assertEquals(Long.MAX_VALUE, LatencyHistogram.bucketUpperBoundNanos(97));
        for (int b = 0; b < LatencyHistogram.BUCKETS; b++) {
            long lower = LatencyHistogram.bucketLowerBoundNanos(b);
            long upper = LatencyHistogram.bucketUpperBoundNanos(b);
            assertTrue(lower < upper, "bucket " + b);
            if (b + 1 < LatencyHistogram.BUCKETS) {
                assertEquals(upper, LatencyHistogram.bucketLowerBoundNanos(b + 1), "contiguous at " + b);
            }
            if (b > 0 && b < LatencyHistogram.BUCKETS - 1) {
                assertTrue(upper - lower <= lower / 4, "at most a quarter wider than its lower bound: " + b);
            }
            // Every bound falls in its own bucket, and the value just below it in the one before.
            assertEquals(b, LatencyHistogram.bucketOf(lower), "lower bound of " + b);
            if (b > 0) {
                assertEquals(b - 1, LatencyHistogram.bucketOf(lower - 1), "below bucket " + b);
            }
        }
        assertEquals(0, LatencyHistogram.bucketOf(-5), "negative counts as 0");
        assertEquals(0, LatencyHistogram.bucketOf(1023));
        assertEquals(97, LatencyHistogram.bucketOf(Long.MAX_VALUE));
        assertThrows(IndexOutOfBoundsException.class, () -> LatencyHistogram.bucketLowerBoundNanos(98));
        assertThrows(IndexOutOfBoundsException.class, () -> LatencyHistogram.bucketUpperBoundNanos(-1));
    }

    @Test
    void percentilesAreUpperBoundsCappedAtTheMaximum() {
        long[] values = new long[100];
        for (int i = 0; i < 100; i++) {
            values[i] = (i + 1) * 10_000L; // 10 µs to 1 ms
        }
        LatencyHistogram h = histogramOf(values);
        assertEquals(100, h.count());
        assertEquals(10_000L * 5050, h.totalNanos()); // 10,000 · (1 + ... + 100)
        assertEquals(1_000_000, h.maxNanos());
        assertEquals(505_000.0, h.meanNanos());
        for (double q : new double[] {0.01, 0.5, 0.9, 0.99, 1.0}) {
            long exact = values[(int) Math.ceil(q * 100) - 1];
            long reported = h.percentileNanos(q);
            assertTrue(reported >= exact && reported <= exact + exact / 4, q + ": " + reported + " for " + exact);
        }
        assertEquals(1_000_000, h.percentileNanos(1.0), "capped at the maximum");
        // The bucket's upper bound: 500 µs lies in [458752, 524288).
        assertEquals(524_288, h.percentileNanos(0.5));

        assertEquals(0, LatencyHistogram.EMPTY.percentileNanos(0.99));
        assertEquals(0, LatencyHistogram.EMPTY.meanNanos());
        assertThrows(IllegalArgumentException.class, () -> h.percentileNanos(0));
        assertThrows(IllegalArgumentException.class, () -> h.percentileNanos(1.5));
        assertThrows(IllegalArgumentException.class, () -> h.percentileNanos(Double.NaN));

        LatencyHistogram beyond = histogramOf(20_000_000_000L);
        assertEquals(97, LatencyHistogram.bucketOf(20_000_000_000L));
        assertEquals(20_000_000_000L, beyond.percentileNanos(0.5), "the last bucket has no bound: the maximum");
    }

    @Test
    void minusGivesWhatWasRecordedBetweenTwoSnapshotsAndPlusAddsThem() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.record(RunSource.GLOBAL, 3_000);
        recorder.record(RunSource.GLOBAL, 900_000_000);
        LatencyHistogram before = read(recorder, RunSource.GLOBAL);
        recorder.record(RunSource.GLOBAL, 5_000);
        recorder.record(RunSource.GLOBAL, 6_000);
        LatencyHistogram after = read(recorder, RunSource.GLOBAL);

        LatencyHistogram between = after.minus(before);
        assertEquals(2, between.count());
        assertEquals(11_000, between.totalNanos());
        assertEquals(LatencyHistogram.bucketUpperBoundNanos(LatencyHistogram.bucketOf(6_000)), between.maxNanos(),
                "only the buckets are known of a difference: the highest one's bound");
        assertTrue(between.percentileNanos(0.99) >= 6_000 && between.percentileNanos(0.99) < 900_000_000,
                "the old 0.9 s wait is not in the difference");
        assertEquals(0, after.minus(after).count());
        assertEquals(0, after.minus(after).maxNanos());

        LatencyHistogram sum = before.plus(between);
        assertEquals(after.count(), sum.count());
        assertEquals(after.totalNanos(), sum.totalNanos());
        assertEquals(java.util.Arrays.toString(after.bucketCounts()), java.util.Arrays.toString(sum.bucketCounts()));
        assertEquals(after, before.plus(histogramOf(5_000, 6_000)).plus(LatencyHistogram.EMPTY));
        assertEquals("count=0", LatencyHistogram.EMPTY.toString());
    }

    @Test
    void textIsWholeMicrosecondsOrTwoFiguresRoundedUp() {
        assertEquals("0us", LatencyHistogram.text(0));
        assertEquals("2us", LatencyHistogram.text(1_024));
        assertEquals("850us", LatencyHistogram.text(850_000));
        assertEquals("1ms", LatencyHistogram.text(1_000_000));
        assertEquals("3.1ms", LatencyHistogram.text(3_050_001));
        assertEquals("10ms", LatencyHistogram.text(9_950_000));
        assertEquals("12ms", LatencyHistogram.text(11_500_000));
        assertEquals("1.5s", LatencyHistogram.text(1_500_000_000));
        assertEquals("18s", LatencyHistogram.text(17_179_869_184L));
    }

    @Test
    void schedLatencyAddsTheSourcesInTheirOrder() {
        LatencyRecorder recorder = new LatencyRecorder();
        recorder.record(RunSource.RUNNEXT, 2_000);
        recorder.record(RunSource.TIMER, 70_000);
        recorder.record(RunSource.TIMER, 80_000);
        LatencyHistogram[] bySource = new LatencyHistogram[RunSource.ALL.length];
        for (RunSource source : RunSource.ALL) {
            bySource[source.ordinal()] = read(recorder, source);
        }
        LatencyTotals latency = LatencyTotals.of(8, bySource);
        assertEquals(List.of("runnext", "local", "global", "fairness", "stolen", "timer"), LatencyTotals.SOURCES);
        assertEquals(LatencyTotals.SOURCES, List.copyOf(latency.bySource().keySet()));
        assertEquals(3, latency.all().count());
        assertEquals(80_000, latency.all().maxNanos());
        assertEquals(2, latency.source("timer").count());
        assertEquals(0, latency.source("stolen").count());
        assertThrows(IllegalArgumentException.class, () -> latency.source("elsewhere"));
        assertThrows(UnsupportedOperationException.class, () -> latency.bySource().clear());
        assertEquals(0, latency.minus(latency).all().count());
    }

    /**
     * Ps record into their own recorders while snapshots sum them: every snapshot's counts only
     * grow, its maximum is never below what its buckets hold, and the final sums are exact.
     */
    @Test
    void concurrentRecordingOnSeveralPsWhileSnapshotsReadThem() throws InterruptedException {
        int ps = 4;
        int perP = 200_000;
        LatencyRecorder[] recorders = new LatencyRecorder[ps];
        for (int i = 0; i < ps; i++) {
            recorders[i] = new LatencyRecorder();
        }
        CountDownLatch start = new CountDownLatch(1);
        List<Thread> writers = new ArrayList<>();
        long[] expectedTotals = new long[ps];
        for (int i = 0; i < ps; i++) {
            int p = i;
            writers.add(Thread.ofPlatform().start(() -> {
                Probe.block(start);
                ThreadLocalRandom random = ThreadLocalRandom.current();
                long total = 0;
                for (int k = 0; k < perP; k++) {
                    // Rising: a late large value must show in the max of any snapshot that counts it.
                    long nanos = k < perP - 1 ? random.nextLong(1, 100_000) : 5_000_000_000L + p;
                    recorders[p].record(RunSource.LOCAL, nanos);
                    total += nanos;
                }
                expectedTotals[p] = total;
            }));
        }
        AtomicReference<String> violation = new AtomicReference<>();
        Thread reader = Thread.ofPlatform().start(() -> {
            Probe.block(start);
            long lastCount = 0;
            while (writers.stream().anyMatch(Thread::isAlive) && violation.get() == null) {
                LatencyHistogram now = sum(recorders, RunSource.LOCAL);
                if (now.count() < lastCount) {
                    violation.set("count went back from " + lastCount + " to " + now.count());
                }
                long highestCounted = 0;
                for (int b = LatencyHistogram.BUCKETS - 1; b >= 0; b--) {
                    if (now.bucketCount(b) > 0) {
                        highestCounted = LatencyHistogram.bucketLowerBoundNanos(b);
                        break;
                    }
                }
                if (now.maxNanos() < highestCounted) {
                    violation.set("max " + now.maxNanos() + " below a counted value >= " + highestCounted);
                }
                lastCount = now.count();
            }
        });
        start.countDown();
        for (Thread writer : writers) {
            writer.join(TimeUnit.SECONDS.toMillis(60));
        }
        reader.join(TimeUnit.SECONDS.toMillis(60));
        assertNull(violation.get());
        LatencyHistogram all = sum(recorders, RunSource.LOCAL);
        assertEquals((long) ps * perP, all.count());
        long expectedTotal = 0;
        for (long t : expectedTotals) {
            expectedTotal += t;
        }
        assertEquals(expectedTotal, all.totalNanos());
        assertEquals(5_000_000_000L + ps - 1, all.maxNanos());
        assertEquals(ps, all.bucketCount(LatencyHistogram.bucketOf(5_000_000_000L)));
        assertEquals(0, sum(recorders, RunSource.GLOBAL).count(), "nothing leaks into other sources");
    }

    private static LatencyHistogram histogramOf(long... values) {
        LatencyRecorder recorder = new LatencyRecorder();
        for (long v : values) {
            recorder.record(RunSource.LOCAL, v);
        }
        return read(recorder, RunSource.LOCAL);
    }

    private static LatencyHistogram read(LatencyRecorder recorder, RunSource source) {
        return sum(new LatencyRecorder[] {recorder}, source);
    }

    private static LatencyHistogram sum(LatencyRecorder[] recorders, RunSource source) {
        int sources = RunSource.ALL.length;
        long[][] counts = new long[sources][LatencyHistogram.BUCKETS];
        long[] totals = new long[sources];
        long[] maxima = new long[sources];
        for (LatencyRecorder r : recorders) {
            r.addTo(counts, totals, maxima);
        }
        return new LatencyHistogram(counts[source.ordinal()], totals[source.ordinal()], maxima[source.ordinal()]);
    }

}
