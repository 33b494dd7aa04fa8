package io.loomgmp.dispatcher;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.Pipe;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.locks.ReentrantLock;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * {@link BlockedCheck} alone: sysmon's look at one carrier thread, here a platform thread the
 * test puts in each kind of wait. Which waits count as blocked, how long each must last before a
 * hand-off ({@link BlockedCheck#blockedFor}), and what starts the count over. Linux only: a
 * RUNNABLE carrier is looked at through {@code /proc}.
 */
@EnabledOnOs(value = OS.LINUX, disabledReason = "sysmon reads /proc on Linux only")
class BlockedCheckTest {
    /** A carrier (no scheduler) whose thread runs {@code body}, started and with its OS thread id known. */
    private static Carrier carrierRunning(Runnable body) throws InterruptedException {
        Carrier m = new Carrier(null, "blocked-check");
        CountDownLatch started = new CountDownLatch(1);
        m.thread = Thread.ofPlatform().daemon().name(m.name).unstarted(() -> {
            m.osThreadId = NativeThreadState.currentThreadId();
            started.countDown();
            body.run();
        });
        m.thread.start();
        started.await();
        return m;
    }

    /**
     * Looks at {@code m} as sysmon does, a look every {@link BlockedCheck#NATIVE_CHECK_NANOS} and
     * more, until {@code done} holds; fails after {@link Probe#BOUND}.
     */
    private static void lookUntil(BlockedCheck check, Carrier m, BooleanSupplier done, String what) throws InterruptedException {
        long deadline = System.nanoTime() + Probe.BOUND.toNanos();
        while (true) {
            check.look(m, System.nanoTime());
            if (done.getAsBoolean()) {
                return;
            }
            assertTrue(System.nanoTime() - deadline < 0, what + ": " + check.looks + " looks");
            Thread.sleep(1);
        }
    }

    @Test
    void aCarrierParkedOnALatchIsBlockedAtEveryLookAndSoonHandedOff() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Carrier m = carrierRunning(() -> Probe.block(release));
        try (BlockedCheck check = new BlockedCheck(new CollectionSentinel())) {
            lookUntil(check, m, () -> check.looks >= 3, "three looks in a row at a parked carrier");
            assertFalse(check.futexOrMonitorWait(), "a latch is the task's own wait");
            assertEquals(BlockedCheck.HANDOFF_AFTER_NANOS, check.blockedFor());
            assertEquals(123, check.blockedSince(123), "counted from when the task was first seen");
            check.reset();
            assertEquals(0, check.looks, "another task: start over");
        } finally {
            release.countDown();
            m.thread.join();
        }
    }

    @Test
    void aCarrierQueuedForAReentrantLockCountsLikeAMonitorWait() throws Exception {
        ReentrantLock lock = new ReentrantLock();
        lock.lock();
        Carrier m = carrierRunning(() -> {
            lock.lock();
            lock.unlock();
        });
        try (BlockedCheck check = new BlockedCheck(new CollectionSentinel())) {
            lookUntil(check, m, () -> check.looks >= 2 && check.futexOrMonitorWait(), "a carrier queued for a lock");
            assertEquals(BlockedCheck.FUTEX_HANDOFF_AFTER_NANOS, check.blockedFor(),
                    "most likely another thread's short critical section");
        } finally {
            lock.unlock();
            m.thread.join();
        }
    }

    @Test
    void aCarrierBlockedOnAMonitorCountsLikeAFutexWait() throws Exception {
        Object monitor = new Object();
        Carrier m;
        synchronized (monitor) {
            m = carrierRunning(() -> {
                synchronized (monitor) {
                    monitor.notifyAll();
                }
            });
            try (BlockedCheck check = new BlockedCheck(new CollectionSentinel())) {
                lookUntil(check, m, () -> check.looks >= 2 && check.futexOrMonitorWait(), "a carrier blocked on a monitor");
                assertEquals(BlockedCheck.FUTEX_HANDOFF_AFTER_NANOS, check.blockedFor());
            }
        }
        m.thread.join();
    }

    @Test
    void aCarrierAsleepInNativeCodeIsBlockedOutsideAFutex() throws Exception {
        Pipe pipe = Pipe.open();
        Carrier m = carrierRunning(() -> {
            try {
                pipe.source().read(ByteBuffer.allocate(1)); // RUNNABLE for the JVM, asleep in the kernel
            } catch (IOException e) {
                // closed at the end of the test
            }
        });
        try (BlockedCheck check = new BlockedCheck(new CollectionSentinel())) {
            lookUntil(check, m, () -> check.looks >= 2 && check.asleepSince != 0 && !check.futexOnly,
                    "a carrier reading an empty pipe");
            assertEquals(BlockedCheck.NATIVE_HANDOFF_AFTER_NANOS, check.blockedFor());
            assertEquals(check.asleepSince, check.blockedSince(0), "counted from when it was first seen asleep");
            int looks = check.looks;
            check.look(m, check.checkedAt + BlockedCheck.NATIVE_CHECK_NANOS - 1);
            assertEquals(looks, check.looks, "too soon to read /proc again: not a new look");
        } finally {
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
            m.thread.join();
            pipe.sink().close();
            pipe.source().close();
        }
    }

    @Test
    void aComputingCarrierIsNotBlocked() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        Carrier m = carrierRunning(() -> {
            while (!stop.get()) {
                Thread.onSpinWait();
            }
        });
        try (BlockedCheck check = new BlockedCheck(new CollectionSentinel())) {
            // On a loaded machine the thread may wait for a CPU, which /proc shows as running
            // too (state R). A look may still catch it stopped for a safepoint, asleep in a
            // futex for a moment; what must never happen is a wait long enough for a hand-off.
            long start = System.nanoTime();
            long now;
            int notBlocked = 0;
            int looks = 0;
            while ((now = System.nanoTime()) - start < 200_000_000L) {
                notBlocked += check.look(m, now) == 0 ? 1 : 0;
                looks++;
                assertFalse(check.looks >= 2 && now - check.blockedSince(start) >= check.blockedFor(),
                        "a computing carrier would be handed off: " + check.looks + " looks, asleep since "
                                + check.asleepSince + ", futex only " + check.futexOnly);
                Thread.sleep(1);
            }
            assertTrue(notBlocked > looks / 2, notBlocked + " of " + looks + " looks found it running");
        } finally {
            stop.set(true);
            m.thread.join();
        }
    }

    @Test
    void aCarrierStartingAThreadIsNotBlockedByItsTask() throws Exception {
        CountDownLatch release = new CountDownLatch(1);
        Carrier m = carrierRunning(() -> Probe.block(release));
        try (BlockedCheck check = new BlockedCheck(new CollectionSentinel())) {
            lookUntil(check, m, () -> check.looks >= 1, "a parked carrier");
            m.startingCarrier = true; // in the kernel for the scheduler, not for its task
            assertEquals(0, check.look(m, System.nanoTime()));
        } finally {
            release.countDown();
            m.thread.join();
        }
    }
}
