package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The sample table on one thread: claims, takes, a full group, staleness, sweeps, the sampling rate. */
class LatencySamplesTest {
    /** A new task each call (a non-capturing lambda would be one object for all). */
    private static Runnable task() {
        return new Runnable() {
            @Override
            public void run() {
            }
        };
    }

    /** One group of 4 slots: every task collides with every other. */
    private static LatencySamples oneGroup() {
        return new LatencySamples(1, 1);
    }

    @Test
    void aClaimedSampleIsTakenOnceByItsTask() {
        LatencySamples samples = oneGroup();
        Runnable task = task();
        Runnable other = task();
        LatencySamples.Sample sample = samples.claim(task, 1_000, false);
        assertNotNull(sample);
        assertEquals(1, samples.held());
        assertNull(samples.take(other), "another task finds nothing");
        assertSame(sample, samples.take(task));
        assertNull(samples.take(task), "taken once");
        assertEquals(0, samples.held());
    }

    @Test
    void aFullGroupDropsTheNewSampleAndKeepsTheOlderOnes() {
        LatencySamples samples = oneGroup();
        Runnable[] tasks = new Runnable[5];
        for (int i = 0; i < tasks.length; i++) {
            tasks[i] = task();
        }
        for (int i = 0; i < LatencySamples.GROUP; i++) {
            assertNotNull(samples.claim(tasks[i], 1_000 + i, false));
        }
        assertNull(samples.claim(tasks[4], 2_000, false), "the group is full: the fifth goes untimed");
        assertNull(samples.take(tasks[4]));
        for (int i = 0; i < LatencySamples.GROUP; i++) {
            assertEquals(1_000 + i, samples.take(tasks[i]).queuedAt());
        }
    }

    @Test
    void aStaleSampleIsReplacedByAClaimAndItsTaskFindsNothing() {
        LatencySamples samples = oneGroup();
        Runnable stale = task();
        for (int i = 0; i < LatencySamples.GROUP; i++) {
            assertNotNull(samples.claim(i == 0 ? stale : task(), 0, false));
        }
        Runnable late = task();
        assertNull(samples.claim(late, LatencySamples.STALE_NANOS, false), "not stale yet at exactly the bound");
        LatencySamples.Sample replacing = samples.claim(late, LatencySamples.STALE_NANOS + 1, true);
        assertNotNull(replacing, "every sample of the group is stale: the first is replaced");
        assertNull(samples.take(stale), "its sample was overwritten");
        assertSame(replacing, samples.take(late));
        assertTrue(replacing.timer());
    }

    @Test
    void sweepsDropOldSamplesGoingRoundTheTable() {
        LatencySamples samples = new LatencySamples(1, 4); // 16 slots
        Runnable old = task();
        Runnable young = task();
        samples.claim(old, 0, false);
        samples.claim(young, 900, false);
        samples.sweep(1_000, 500, 16);
        assertNull(samples.take(old), "older than 500 ns at 1,000");
        assertNotNull(samples.take(young));

        samples.claim(old, 0, false);
        for (int round = 0; round < 4; round++) {
            samples.sweep(1_000, 500, 4); // a quarter of the table per call
        }
        assertEquals(0, samples.held(), "four calls of 4 slots cover the 16");
        samples.claim(old, 0, false);
        samples.clear();
        assertEquals(0, samples.held());
    }

    @Test
    void forgetDropsOnlyThatSample() {
        LatencySamples samples = oneGroup();
        Runnable task = task();
        LatencySamples.Sample first = samples.claim(task, 1, false);
        LatencySamples.Sample second = samples.claim(task, 2, false);
        samples.forget(first);
        assertSame(second, samples.take(task), "a Runnable queued twice keeps its other sample");
        samples.forget(first); // gone already: nothing to do
        assertEquals(0, samples.held());
    }

    @Test
    void carriersSampleAboutOneInNAndOtherThreadsToo() {
        LatencySamples samples = LatencySamples.forProcs(8, 2);
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

        LatencySamples every = LatencySamples.forProcs(1, 2);
        for (int i = 0; i < 100; i++) {
            assertTrue(every.shouldSample(m) && every.shouldSample(null));
        }
        LatencySamples off = LatencySamples.forProcs(0, 2);
        assertFalse(off.on());
        assertEquals(0, off.held());
    }

    @Test
    void badSettingsAreRefused() {
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> LatencySamples.forProcs(-1, 2));
        assertEquals("latencySample must be from 0 to 1000000 (0 turns sampling off, 1 times every task), was -1",
                e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> LatencySamples.forProcs(1_000_001, 2));
        assertThrows(IllegalArgumentException.class, () -> new LatencySamples(1, 3));
        assertThrows(IllegalArgumentException.class, () -> GmpScheduler.builder().latencySample(-8));
    }
}
