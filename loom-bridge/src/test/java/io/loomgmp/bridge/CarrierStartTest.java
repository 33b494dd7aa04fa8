package io.loomgmp.bridge;

import io.loomgmp.dispatcher.GmpScheduler;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The application's thread factory may block whoever calls it, on a contended monitor or lock.
 * Called on a carrier, that held the carrier's P; called on a virtual thread that submits to GMP
 * directly (an {@code Executor} call: the JDK pins a virtual thread only for its own
 * submissions), the virtual thread unmounted and waited to be run again while the P it reserved
 * for the new carrier sat in transit and the spinning count it took held back every wake-up:
 * once the other carriers parked, nothing ran ever again (the soak's stall after 326 s). Sysmon
 * starts every carrier now, and neither waits for the factory. Surefire starts this JVM with the
 * --add-opens/--add-exports the per-builder API needs.
 */
class CarrierStartTest {
    private static final Duration BOUND = Duration.ofSeconds(20);

    @Test
    void aThreadFactoryThatBlocksItsCallerStallsNoCarrierAndNoVirtualThread() throws Exception {
        Object factoryLock = new Object();
        AtomicInteger made = new AtomicInteger();
        ThreadFactory plain = Thread.ofPlatform().daemon().name("start-M", 0).factory();
        ThreadFactory blocking = task -> {
            if (made.incrementAndGet() > 1) {
                synchronized (factoryLock) { // contended while the test holds it
                    made.get();
                }
            }
            return plain.newThread(task);
        };
        CountDownLatch holding = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        Thread holder = Thread.ofPlatform().daemon().start(() -> {
            synchronized (factoryLock) {
                holding.countDown();
                await(release);
            }
        });
        assertTrue(holding.await(BOUND.toSeconds(), TimeUnit.SECONDS));
        // Not closed on failure: a stalled scheduler's close() would never return.
        GmpScheduler gmp = GmpScheduler.builder().procs(2).name("start").threadFactory(blocking).build();
        try {
            CountDownLatch submitterDone = new CountDownLatch(1);
            CountDownLatch taskRan = new CountDownLatch(1);
            GmpVirtualThreads.builder(gmp).name("submitter").start(() -> {
                // One carrier exists (this one) and P1 is idle: this would wake P1 with a new one.
                gmp.execute(taskRan::countDown);
                submitterDone.countDown();
            });
            // The factory blocks sysmon until the holder lets go; the carrier that found the
            // submitter, and the submitter, return at once: neither starts a carrier itself.
            assertTrue(submitterDone.await(BOUND.toSeconds(), TimeUnit.SECONDS),
                    "the submitting virtual thread waited for the thread factory\n" + gmp.snapshot());
            Thread.sleep(200); // every carrier parked, if one could
            release.countDown();
            holder.join();
            assertTrue(taskRan.await(BOUND.toSeconds(), TimeUnit.SECONDS), "the task never ran\n" + gmp.snapshot());
            // And the scheduler still wakes carriers: work from outside runs.
            CountDownLatch later = new CountDownLatch(1);
            gmp.execute(later::countDown);
            assertTrue(later.await(BOUND.toSeconds(), TimeUnit.SECONDS),
                    "work from outside after the blocked start never ran\n" + gmp.snapshot());
        } finally {
            release.countDown();
        }
        Thread closer = Thread.ofPlatform().daemon().start(gmp::close);
        closer.join(BOUND.toMillis());
        assertTrue(!closer.isAlive(), "close() did not return\n" + gmp.snapshot());
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
