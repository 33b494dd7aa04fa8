package io.loomgmp.benchmarks.saturation;

import org.junit.jupiter.api.Test;

import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class OpenLoopScheduleTest {
    private static final long SECOND = 1_000_000_000L;

    @Test
    void requestIIsDueAtStartPlusIOverTheRate() {
        OpenLoopSchedule schedule = new OpenLoopSchedule(5_000, 1_000, SECOND, 2 * SECOND);
        assertEquals(5_000, schedule.intendedNanos(0));
        assertEquals(5_000 + 1_000_000, schedule.intendedNanos(1));
        assertEquals(5_000 + SECOND, schedule.intendedNanos(1_000));
        assertEquals(5_000 + SECOND, schedule.windowStartNanos());
        assertEquals(5_000 + 3 * SECOND, schedule.windowEndNanos());
    }

    @Test
    void theWarmUpIsNotMeasuredTheWindowIsAndNothingIsDueAfterIt() {
        OpenLoopSchedule schedule = new OpenLoopSchedule(0, 1_000, SECOND, 2 * SECOND);
        assertFalse(schedule.measured(999), "the warm-up's last");
        assertTrue(schedule.measured(1_000), "due exactly at the window's start");
        assertTrue(schedule.measured(2_999));
        assertTrue(schedule.due(2_999));
        assertFalse(schedule.measured(3_000), "due exactly at the window's end: not in it");
        assertFalse(schedule.due(3_000));
        assertEquals(2_000, schedule.measuredCount());
    }

    @Test
    void theMeasuredCountIsTheRequestsDueInTheWindowForAnyRate() {
        for (double rate : List.of(1.0, 3.0, 333.3, 907.25, 1_234.5678, 100_000.0)) {
            for (long start : List.of(0L, 123_456_789L, -987_654_321L)) { // nanoTime may be negative
                OpenLoopSchedule schedule = new OpenLoopSchedule(start, rate, SECOND / 3, SECOND + 7);
                long counted = 0;
                for (long i = 0; schedule.due(i); i++) {
                    if (schedule.measured(i)) {
                        counted++;
                    }
                    assertTrue(schedule.intendedNanos(i + 1) >= schedule.intendedNanos(i), "in order");
                }
                assertEquals(counted, schedule.measuredCount(), "rate " + rate + ", start " + start);
                long first = schedule.firstAtOrAfter(schedule.windowStartNanos());
                assertTrue(schedule.measured(first) && (first == 0 || !schedule.measured(first - 1)), "rate " + rate);
            }
        }
    }

    @Test
    void theIntendedTimesDoNotDriftOverALongRun() {
        OpenLoopSchedule schedule = new OpenLoopSchedule(0, 907.25, 0, 600 * SECOND);
        long i = 453_625; // 500 s in
        assertEquals(i / 907.25 * 1e9, schedule.intendedNanos(i), 1.0, "computed from i, not summed interval by interval");
    }

    @Test
    void refusesNoRateOrNoWindow() {
        assertThrows(IllegalArgumentException.class, () -> new OpenLoopSchedule(0, 0, 0, SECOND));
        assertThrows(IllegalArgumentException.class, () -> new OpenLoopSchedule(0, Double.NaN, 0, SECOND));
        assertThrows(IllegalArgumentException.class, () -> new OpenLoopSchedule(0, 100, -1, SECOND));
        assertThrows(IllegalArgumentException.class, () -> new OpenLoopSchedule(0, 100, 0, 0));
    }
}
