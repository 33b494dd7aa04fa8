package io.loomgmp.metrics;

import io.loomgmp.dispatcher.GmpScheduler;
import io.loomgmp.dispatcher.SchedulerSnapshot;
import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

class SnapshotCacheTest {
    @Test
    void aSnapshotServesReadsUntilItIsMaxAgeOld() throws InterruptedException {
        AtomicLong clock = new AtomicLong(1_000);
        SnapshotCache cache = new SnapshotCache(100, clock::get);
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(1).name("cache").build()) {
            SchedulerSnapshot first = cache.of(scheduler);
            assertEquals(0, first.tasksRun());

            CountDownLatch ran = new CountDownLatch(1);
            scheduler.execute(ran::countDown);
            assertTrue(ran.await(30, TimeUnit.SECONDS), "the task did not run\n" + scheduler.snapshot());

            clock.addAndGet(99);
            assertSame(first, cache.of(scheduler), "99 ns old: still served");
            clock.addAndGet(1);
            SchedulerSnapshot second = cache.of(scheduler);
            assertNotSame(first, second, "100 ns old: taken again");
            assertEquals(1, second.tasksRun());
            assertSame(second, cache.of(scheduler));
        }
    }

    @Test
    void maxAgeZeroTakesASnapshotAtEveryRead() {
        SnapshotCache cache = new SnapshotCache(0, () -> 42);
        try (GmpScheduler scheduler = GmpScheduler.builder().procs(1).name("cache").build()) {
            assertNotSame(cache.of(scheduler), cache.of(scheduler));
        }
    }

    @Test
    void aNegativeMaxAgeIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> new SnapshotCache(-1, System::nanoTime));
    }
}
