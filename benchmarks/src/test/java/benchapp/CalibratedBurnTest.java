package benchapp;

import org.junit.jupiter.api.Test;

import java.lang.management.ManagementFactory;
import java.lang.management.ThreadMXBean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class CalibratedBurnTest {
    @Test
    void theSameStepsFromTheSameSeedGiveTheSameResult() {
        assertEquals(CalibratedBurn.steps(7, 1_000), CalibratedBurn.steps(7, 1_000));
        assertNotEquals(CalibratedBurn.steps(7, 1_000), CalibratedBurn.steps(7, 1_001));
        assertNotEquals(0, CalibratedBurn.steps(0, 10), "0 is xorshift's fixed point: a seed of 0 is replaced");
        CalibratedBurn burn = CalibratedBurn.of(500);
        assertEquals(CalibratedBurn.steps(9, 5_000), burn.burnMicros(10, 9, new java.util.concurrent.atomic.LongAdder()),
                "10 µs at 500 steps per µs");
    }

    @Test
    void aCountedBurnCountsEachMillisecondAsItGoesAndGivesTheSameResult() {
        CalibratedBurn burn = CalibratedBurn.of(500);
        java.util.concurrent.atomic.LongAdder done = new java.util.concurrent.atomic.LongAdder();
        // 2.5 ms at 500 steps a µs: parts of 500,000, 500,000 and 250,000 steps, one chain
        assertEquals(CalibratedBurn.steps(9, 1_250_000), burn.burnMicros(2_500, 9, done));
        assertEquals(1_250_000, done.sum());
        java.util.List<Long> seen = new java.util.ArrayList<>();
        java.util.concurrent.atomic.LongAdder watched = new java.util.concurrent.atomic.LongAdder() {
            @Override
            public void add(long x) {
                seen.add(x);
                super.add(x);
            }
        };
        burn.burnMicros(2_500, 9, watched);
        assertEquals(java.util.List.of(500_000L, 500_000L, 250_000L), seen, "counted a millisecond at a time, as done");
        assertEquals(CalibratedBurn.steps(9, 0), burn.burnMicros(0, 9, done), "no work: the seed's result, nothing counted");
        assertEquals(1_250_000, done.sum());
        assertEquals(CalibratedBurn.steps(0, 5_000), burn.burnMicros(10, 0, done), "a seed of 0 is replaced");
    }

    @Test
    void aCalibratedBurnTakesAboutTheCpuTimeAskedFor() {
        CalibratedBurn burn = CalibratedBurn.calibrate();
        assertTrue(burn.stepsPerMicro() > 10 && burn.stepsPerMicro() < 100_000, "a plausible core: " + burn.stepsPerMicro());
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sink = 0;
        long start = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < 10; i++) {
            sink += burn.burnMicros(5_000, i + 1, new java.util.concurrent.atomic.LongAdder());
        }
        long cpuMillis = (threads.getCurrentThreadCpuTime() - start) / 1_000_000;
        // 50 ms asked for. The calibration takes the fastest of its runs, so a loaded machine makes a
        // burn take more CPU (cache misses, frequency), never much less: generous bounds either way.
        assertTrue(cpuMillis >= 20 && cpuMillis <= 500, "50 ms of CPU asked for, " + cpuMillis + " ms taken (sink " + sink + ")");
    }

    @Test
    void refusesANonsensicalCalibration() {
        assertThrows(IllegalArgumentException.class, () -> CalibratedBurn.of(0));
        assertThrows(IllegalArgumentException.class, () -> CalibratedBurn.of(Double.NaN));
        assertThrows(IllegalArgumentException.class, () -> CalibratedBurn.of(Double.POSITIVE_INFINITY));
    }
}
