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
        AtomicLong tid = new AtomicLong(-1);
        CountDownLatch started = new CountDownLatch(1);
        Thread reader = Thread.ofPlatform().daemon().start(() -> {
            tid.set(NativeThreadState.currentThreadId());
            started.countDown();
            try {
                pipe.source().read(ByteBuffer.allocate(1));
            } catch (IOException e) {
                // closed at the end of the test
            }
        });
        started.await();
        try (NativeThreadState state = NativeThreadState.of(tid.get())) {
            assertNotNull(state, "no /proc entry for the reader");
            awaitLook(state::look, NativeThreadState.BLOCKED, "a pipe read");
            long slices = state.slices();
            Thread.sleep(50);
            assertEquals(slices, state.slices(), "a thread blocked all along is not put on a CPU");
        } finally {
            pipe.sink().write(ByteBuffer.wrap(new byte[] {1}));
            reader.join();
            pipe.sink().close();
            pipe.source().close();
        }
    }

    @Test
    void aParkedThreadSleepsInAFutex() throws Exception {
        AtomicLong tid = new AtomicLong(-1);
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        Thread parked = Thread.ofPlatform().daemon().start(() -> {
            tid.set(NativeThreadState.currentThreadId());
            started.countDown();
            while (!stop.get()) {
                LockSupport.park();
            }
        });
        started.await();
        try (NativeThreadState state = NativeThreadState.of(tid.get())) {
            assertNotNull(state, "no /proc entry for the parked thread");
            awaitLook(state::look, NativeThreadState.FUTEX, "a park");
        } finally {
            stop.set(true);
            LockSupport.unpark(parked);
            parked.join();
        }
    }

    @Test
    void aComputingThreadRunsAndIsPutOnACpu() throws Exception {
        AtomicLong tid = new AtomicLong(-1);
        AtomicBoolean stop = new AtomicBoolean();
        CountDownLatch started = new CountDownLatch(1);
        Thread computing = Thread.ofPlatform().daemon().start(() -> {
            tid.set(NativeThreadState.currentThreadId());
            started.countDown();
            while (!stop.get()) {
                Thread.onSpinWait();
            }
        });
        started.await();
        try (NativeThreadState state = NativeThreadState.of(tid.get())) {
            assertNotNull(state, "no /proc entry for the computing thread");
            awaitLook(state::look, NativeThreadState.RUNNING, "a busy loop");
            long slices = state.slices();
            assertTrue(slices > 0, "slices " + slices);
        } finally {
            stop.set(true);
            computing.join();
        }
    }

    @Test
    void theCallerIsAmongTheRunnableThreads() {
        assertTrue(NativeThreadState.runnableThreads() >= 1, "runnable " + NativeThreadState.runnableThreads());
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
}
