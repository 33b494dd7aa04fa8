package io.loomgmp.dispatcher;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.channels.Pipe;
import java.nio.ByteBuffer;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.locks.LockSupport;
import java.util.function.IntSupplier;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.condition.EnabledOnOs;
import org.junit.jupiter.api.condition.OS;

/** What sysmon reads from {@code /proc} about a thread: Linux only. */
@EnabledOnOs(value = OS.LINUX, disabledReason = "sysmon reads /proc on Linux only")
class NativeThreadStateTest {
    private static final long BOUND_NANOS = 30_000_000_000L;

    @Test
    void aThreadReadingAnEmptyPipeIsBlockedOutsideAFutex() throws Exception {
        Pipe pipe = Pipe.open();
        Watched reader = start(() -> {
            try {
                pipe.source().read(ByteBuffer.allocate(1));
            } catch (IOException e) {
                // closed at the end of the test
            }
        });
        try (NativeThreadState state = NativeThreadState.of(reader.tid())) {
            assertNotNull(state, "no /proc entry for the reader");
            awaitLook(state::look, NativeThreadState.BLOCKED, "a pipe read");
            long slices = state.slices();
            Thread.sleep(50);
            assertEquals(slices, state.slices(), "a thread blocked all along is not put on a CPU");
        } finally {
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
            reader.thread().join();
            pipe.sink().close();
            pipe.source().close();
        }
    }

    @Test
    void aParkedThreadSleepsInAFutex() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        Watched parked = start(() -> {
            while (!stop.get()) {
                LockSupport.park();
            }
        });
        try (NativeThreadState state = NativeThreadState.of(parked.tid())) {
            assertNotNull(state, "no /proc entry for the parked thread");
            awaitLook(state::look, NativeThreadState.FUTEX, "a park");
        } finally {
            stop.set(true);
            LockSupport.unpark(parked.thread());
            parked.thread().join();
        }
    }

    @Test
    void aComputingThreadRunsAndIsPutOnACpu() throws Exception {
        AtomicBoolean stop = new AtomicBoolean();
        Watched computing = start(() -> {
            while (!stop.get()) {
                Thread.onSpinWait();
            }
        });
        try (NativeThreadState state = NativeThreadState.of(computing.tid())) {
            assertNotNull(state, "no /proc entry for the computing thread");
            awaitLook(state::look, NativeThreadState.RUNNING, "a busy loop");
            long slices = state.slices();
            assertTrue(slices > 0, "slices " + slices);
        } finally {
            stop.set(true);
            computing.thread().join();
        }
    }

    @Test
    void withoutSchedulerStatisticsCpuTicksStandInForSlices() throws Exception {
        Pipe pipe = Pipe.open();
        Watched reader = start(() -> {
            try {
                pipe.source().read(ByteBuffer.allocate(1));
            } catch (IOException e) {
                // closed at the end of the test
            }
        });
        AtomicBoolean stop = new AtomicBoolean();
        Watched computing = start(() -> {
            while (!stop.get()) {
                Thread.onSpinWait();
            }
        });
        try (NativeThreadState blocked = NativeThreadState.of(reader.tid(), false);
                NativeThreadState busy = NativeThreadState.of(computing.tid(), false)) {
            assertNotNull(blocked, "no /proc entry for the reader");
            assertNotNull(busy, "no /proc entry for the computing thread");
            awaitLook(blocked::look, NativeThreadState.BLOCKED, "a pipe read");
            long blockedTicks = blocked.slices();
            assertTrue(blockedTicks >= 0, "ticks " + blockedTicks);
            long busyTicks = busy.slices();
            assertTrue(busyTicks >= 0, "ticks " + busyTicks);
            // A busy thread runs a clock tick sooner or later, however loaded the machine.
            long deadline = System.nanoTime() + BOUND_NANOS;
            while (busy.slices() == busyTicks && System.nanoTime() < deadline) {
                Thread.sleep(10);
            }
            assertTrue(busy.slices() > busyTicks, "a computing thread's CPU ticks grow");
            assertEquals(blockedTicks, blocked.slices(), "a thread blocked all along uses no CPU");
        } finally {
            stop.set(true);
            computing.thread().join();
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
            reader.thread().join();
            pipe.sink().close();
            pipe.source().close();
        }
    }

    @Test
    void theCallerIsAmongTheRunnableThreads() {
        assertTrue(NativeThreadState.runnableThreads() >= 1, "runnable " + NativeThreadState.runnableThreads());
    }

    private record Watched(Thread thread, long tid) {
    }

    /** Starts a platform thread running {@code body}, once it has told its OS thread id. */
    private static Watched start(Runnable body) throws InterruptedException {
        AtomicLong tid = new AtomicLong(-1);
        CountDownLatch started = new CountDownLatch(1);
        Thread thread = Thread.ofPlatform().daemon().start(() -> {
            tid.set(NativeThreadState.currentThreadId());
            started.countDown();
            body.run();
        });
        started.await();
        return new Watched(thread, tid.get());
    }

    /** Looks until {@code look} gives {@code expected}: a thread takes a moment to get there. */
    private static void awaitLook(IntSupplier look, int expected, String what) throws InterruptedException {
        long deadline = System.nanoTime() + BOUND_NANOS;
        int seen;
        while ((seen = look.getAsInt()) != expected) {
            assertTrue(System.nanoTime() - deadline < 0, what + ": looked " + seen + ", expected " + expected);
            Thread.sleep(5);
        }
    }

    @Test
    void thisJvmsRunnableThreadsAreCountedFromItsOwnTasks() throws Exception {
        int spinners = 3;
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(spinners);
        Thread[] threads = new Thread[spinners];
        for (int i = 0; i < spinners; i++) {
            threads[i] = Thread.ofPlatform().daemon().start(() -> {
                started.countDown();
                while (!stop.get()) {
                    Thread.onSpinWait(); // running or waiting for a CPU: state R either way
                }
            });
        }
        try {
            started.await();
            // Looked at until they are all counted: a spinner that just counted down may still be
            // in the futex wake of its countDown (state S), seen beside a CPU hog.
            long deadline = System.nanoTime() + BOUND_NANOS;
            int runnable;
            while ((runnable = NativeThreadState.runnableThreadsOfThisProcess()) < spinners + 1) {
                assertTrue(System.nanoTime() - deadline < 0, "the spinners and the caller: " + runnable);
                Thread.sleep(5);
            }
        } finally {
            stop.set(true);
            for (Thread thread : threads) {
                thread.join();
            }
        }
        int quiet = NativeThreadState.runnableThreadsOfThisProcess();
        assertTrue(quiet >= 1 && quiet < 100, "the caller at least, and not every thread: " + quiet);
    }

}
