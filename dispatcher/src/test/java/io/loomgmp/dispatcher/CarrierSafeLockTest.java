package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * A virtual thread waits for a scheduler lock on its carrier, never parked (unmounted): parked,
 * it would wait in a run queue to take the lock while carriers queue behind it for the same lock.
 * A platform thread parks, as on any ReentrantLock.
 */
class CarrierSafeLockTest {

    @Test
    void aVirtualThreadWaitingForTheLockStaysMounted() throws Exception {
        CarrierSafeLock lock = new CarrierSafeLock();
        lock.lock(); // held by this platform thread
        AtomicBoolean acquired = new AtomicBoolean();
        Thread waiter = Thread.ofVirtual().start(() -> {
            lock.lock();
            try {
                acquired.set(true);
            } finally {
                lock.unlock();
            }
        });
        try {
            // First the waiter must be inside lock(): a thread not yet started or not yet there
            // is RUNNABLE too, which would pass what follows without testing the lock.
            long reachBound = System.nanoTime() + Probe.BOUND.toNanos();
            while (!inLock(waiter)) {
                assertTrue(System.nanoTime() - reachBound < 0, "the virtual thread never reached lock()");
                Thread.sleep(1);
            }
            long until = System.nanoTime() + 200_000_000;
            while (System.nanoTime() - until < 0) {
                assertTrue(inLock(waiter), "the waiter left lock() while the lock was held");
                Thread.State state = waiter.getState();
                assertEquals(Thread.State.RUNNABLE, state, "the waiting virtual thread left its carrier");
                Thread.sleep(1);
            }
            assertTrue(!acquired.get());
        } finally {
            lock.unlock();
        }
        waiter.join(Probe.BOUND.toMillis());
        assertTrue(acquired.get(), "the virtual thread took the lock once it was free");
    }

    /** Whether {@code thread} is inside {@link CarrierSafeLock#lock()} (its stack, taken now, says so). */
    private static boolean inLock(Thread thread) {
        for (StackTraceElement frame : thread.getStackTrace()) {
            if (frame.getClassName().equals(CarrierSafeLock.class.getName()) && frame.getMethodName().equals("lock")) {
                return true;
            }
        }
        return false;
    }

    @Test
    void aPlatformThreadWaitingForTheLockParks() throws Exception {
        CarrierSafeLock lock = new CarrierSafeLock();
        lock.lock();
        CountDownLatch acquired = new CountDownLatch(1);
        Thread waiter = Thread.ofPlatform().start(() -> {
            lock.lock();
            try {
                acquired.countDown();
            } finally {
                lock.unlock();
            }
        });
        try {
            long until = System.nanoTime() + Probe.BOUND.toNanos();
            while (waiter.getState() != Thread.State.WAITING) {
                assertTrue(System.nanoTime() - until < 0, "the platform thread never parked");
                Thread.sleep(1);
            }
        } finally {
            lock.unlock();
        }
        assertTrue(acquired.await(Probe.BOUND.toSeconds(), TimeUnit.SECONDS));
    }
}
