package io.loomgmp.benchmarks;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The timed-park rounds' protocol, outside JMH, on the JDK's scheduler. */
class TimedParkBenchmarkTest {
    @Test
    @Timeout(value = 60, unit = TimeUnit.SECONDS)
    void roundsEndWhenEveryParkerWasWokenAndTheTearDownEndsEveryThread() throws Exception {
        TimedParkBenchmark benchmark = new TimedParkBenchmark();
        benchmark.parkers = 50;
        benchmark.startPairs();
        TimedParkBenchmark.StarvationCounters counters = new TimedParkBenchmark.StarvationCounters();
        counters.reset(benchmark);
        for (int round = 0; round < 20; round++) {
            benchmark.round(counters); // returns only once all 50 parkers were woken, each once
        }
        assertEquals(benchmark.backOffs.sum(), counters.backOffs, "this iteration's back-offs");
        // Between rounds every parker is back in its timed park: the state its partner waits for.
        for (Thread parker : benchmark.parkerThreads()) {
            long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(10);
            while (parker.getState() != Thread.State.TIMED_WAITING && System.nanoTime() < deadline) {
                Thread.sleep(1);
            }
            assertTrue(parker.getState() == Thread.State.TIMED_WAITING, parker + " parked, timed: " + parker.getState());
        }
        benchmark.stopPairs();
        for (Thread thread : benchmark.parkerThreads()) {
            assertFalse(thread.isAlive(), thread + " ended");
        }
    }

    @Test
    void aPartnerBacksOffAfterItsStreakOfYieldsAndCountsIt() {
        TimedParkBenchmark benchmark = new TimedParkBenchmark();
        assertEquals(1, benchmark.yieldOrBackOff(0));
        assertEquals(TimedParkBenchmark.YIELD_STREAK, benchmark.yieldOrBackOff(TimedParkBenchmark.YIELD_STREAK - 1));
        assertEquals(0, benchmark.backOffs.sum());
        long start = System.nanoTime();
        assertEquals(0, benchmark.yieldOrBackOff(TimedParkBenchmark.YIELD_STREAK), "a new streak after the back-off");
        assertEquals(1, benchmark.backOffs.sum());
        assertTrue(System.nanoTime() - start >= TimeUnit.MILLISECONDS.toNanos(TimedParkBenchmark.BACK_OFF_MILLIS),
                "it slept");
    }

    @Test
    void noParkersIsRefused() {
        TimedParkBenchmark benchmark = new TimedParkBenchmark();
        benchmark.parkers = 0;
        assertThrows(IllegalArgumentException.class, benchmark::startPairs);
    }
}
