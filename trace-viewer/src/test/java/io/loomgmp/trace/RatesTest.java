package io.loomgmp.trace;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

/** The rates per second between two readings: counter differences over the time between the reads. */
class RatesTest {
    private static SchedulerReading reading(long atNanos, long tasks, long steals, long globalGrabs, long fairness,
                                            long preempts, long handoffs, long parks, long... tasksByP) {
        List<SchedulerReading.ProcessorRow> rows = new java.util.ArrayList<>();
        for (int i = 0; i < tasksByP.length; i++) {
            rows.add(new SchedulerReading.ProcessorRow(i, "running", 0, false, tasksByP[i], 0, null, -1));
        }
        return new SchedulerReading(atNanos, 0, "gmp", tasksByP.length, 0, 256, false, 2, 2, 0, 0, 0, 0, 0, tasks,
                steals, globalGrabs, fairness, preempts, handoffs, parks, 0, 0, "SCHED", rows, null);
    }

    @Test
    void eachRateIsItsCounterDifferenceOverTheSecondsBetweenTheReads() {
        SchedulerReading before = reading(1_000_000_000L, 1_000, 10, 100, 5, 50, 1, 7, 600, 400);
        SchedulerReading after = reading(3_000_000_000L, 5_000, 14, 300, 25, 250, 2, 8, 2_600, 2_400);
        Rates r = Rates.between(before, after);
        assertEquals(2.0, r.seconds());
        assertEquals(2_000, r.tasks());
        assertEquals(2, r.steals());
        assertEquals(110, r.global(), "batches and fairness-tick grabs: every task taken from the global queue");
        assertEquals(100, r.preempts());
        assertEquals(0.5, r.handoffs());
        assertEquals(0.5, r.parks());
        assertArrayEquals(new double[] {1_000, 1_000}, r.tasksByP());
    }

    @Test
    void aRateOverAFractionOfASecondIsScaledUp() {
        Rates r = Rates.between(reading(0, 0, 0, 0, 0, 0, 0, 0, 0), reading(250_000_000L, 100, 0, 0, 0, 0, 0, 0, 100));
        assertEquals(400, r.tasks());
        assertArrayEquals(new double[] {400}, r.tasksByP());
    }

    @Test
    void noRatesWithoutAnEarlierReadingOfTheSameScheduler() {
        SchedulerReading now = reading(2_000_000_000L, 100, 0, 0, 0, 0, 0, 0, 50, 50);
        assertNull(Rates.between(null, now), "the first frame");
        assertNull(Rates.between(now, now), "no time between the reads");
        assertNull(Rates.between(reading(1_000_000_000L, 50, 0, 0, 0, 0, 0, 0, 50), now), "another P count");
        assertNull(Rates.between(reading(1_000_000_000L, 500, 0, 0, 0, 0, 0, 0, 250, 250), now),
                "a counter that went back: a new scheduler under the same name");
    }
}
