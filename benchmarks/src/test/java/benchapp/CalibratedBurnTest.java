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
        assertEquals(CalibratedBurn.steps(9, 5_000), burn.burnMicros(10, 9), "10 µs at 500 steps per µs");
    }

    @Test
    void aCalibratedBurnTakesAboutTheCpuTimeAskedFor() {
        CalibratedBurn burn = CalibratedBurn.calibrate();
        assertTrue(burn.stepsPerMicro() > 10 && burn.stepsPerMicro() < 100_000, "a plausible core: " + burn.stepsPerMicro());
        ThreadMXBean threads = ManagementFactory.getThreadMXBean();
        long sink = 0;
        long start = threads.getCurrentThreadCpuTime();
        for (int i = 0; i < 10; i++) {
            sink += burn.burnMicros(5_000, i + 1);
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
