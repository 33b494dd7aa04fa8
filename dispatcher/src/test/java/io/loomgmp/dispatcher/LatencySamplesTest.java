package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sampling rate, and what a sample is: the queued entry that carries a task and its timestamp. */
class LatencySamplesTest {
    @Test
    void aSampleCarriesItsTaskAndWhenItWasQueued() {
        AtomicInteger runs = new AtomicInteger();
        Runnable task = runs::incrementAndGet;
        LatencySamples.Sample sample = LatencySamples.sample(task, 42, true);
        assertSame(task, sample.task());
        assertEquals(42, sample.queuedAt());
        assertTrue(sample.timer());
        sample.run(); // should anything run the entry itself, the task runs
        assertEquals(1, runs.get());
    }

    @Test
    void carriersSampleAboutOneInNAndOtherThreadsToo() {
        LatencySamples samples = new LatencySamples(8);
        Carrier m = new Carrier(null, "test-M0");
        int n = 80_000;
        int fromCarrier = 0;
        int fromOutside = 0;
        for (int i = 0; i < n; i++) {
            fromCarrier += samples.shouldSample(m) ? 1 : 0;
            fromOutside += samples.shouldSample(null) ? 1 : 0;
        }
        // Expected 10,000 each; the bounds are many standard deviations wide.
        assertTrue(fromCarrier > 8_000 && fromCarrier < 12_000, "carrier: " + fromCarrier);
        assertTrue(fromOutside > 8_000 && fromOutside < 12_000, "outside: " + fromOutside);

        LatencySamples every = new LatencySamples(1);
        for (int i = 0; i < 100; i++) {
            assertTrue(every.shouldSample(m) && every.shouldSample(null));
        }
        assertFalse(new LatencySamples(0).on());
    }

    @Test
    void badSettingsAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> new LatencySamples(-1));
        assertEquals("latencySample must be from 0 to 1000000 (0 turns sampling off, 1 times every task), was -1",
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> new LatencySamples(1_000_001));
        assertThrows(IllegalArgumentException.class, () -> GmpScheduler.builder().latencySample(-8));
    }
}
