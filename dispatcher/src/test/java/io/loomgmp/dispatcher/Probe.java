package io.loomgmp.dispatcher;

import io.loomgmp.dispatcher.loom.LoomSupport;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.function.BooleanSupplier;

import static org.junit.jupiter.api.Assertions.fail;

/** Bounded waits for tests: they fail with the scheduler's snapshot instead of hanging. */
final class Probe {
    /** How long a test waits for what must happen, on a loaded machine too, before it fails instead. */
    static final Duration BOUND = Duration.ofSeconds(30);

    private Probe() {
    }

    /**
     * Inside a task: blocks its carrier until {@code latch} is released, as the tests intend, and
     * throws an {@code AssertionError} if that takes longer than {@link #BOUND}. An interrupt
     * does not end the wait (the scheduler may interrupt a carrier); it is set again on return.
     */
    static void block(CountDownLatch latch) {
        long deadline = System.nanoTime() + BOUND.toNanos();
        boolean interrupted = false;
        try {
            while (true) {
                try {
                    if (latch.await(Math.max(0, deadline - System.nanoTime()), TimeUnit.NANOSECONDS)) {
                        return;
                    }
                    throw new AssertionError("a task's latch not released within " + BOUND);
                } catch (InterruptedException e) {
                    interrupted = true;
                }
            }
        } finally {
            if (interrupted) {
                Thread.currentThread().interrupt();
            }
        }
    }

    static void await(CountDownLatch latch, Duration bound, GmpScheduler scheduler, String what) {
        try {
            if (!latch.await(bound.toMillis(), TimeUnit.MILLISECONDS)) {
                fail(what + " did not happen within " + bound + " (" + latch.getCount() + " left)\n"
                        + scheduler.snapshot());
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted waiting for " + what);
        }
    }

    static void awaitTrue(BooleanSupplier condition, Duration bound, GmpScheduler scheduler, String what) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                fail(what + " did not happen within " + bound + "\n" + scheduler.snapshot());
            }
            try {
                Thread.sleep(1);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                fail("interrupted waiting for " + what);
            }
        }
    }

    /** Closes {@code scheduler}, failing with its snapshot and carrier stacks if that takes too long. */
    static void closeWithin(GmpScheduler scheduler, Duration bound) {
        Thread closer = Thread.ofPlatform().name("closer").start(scheduler::close);
        try {
            closer.join(bound);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            fail("interrupted waiting for close()");
        }
        if (closer.isAlive()) {
            StringBuilder stacks = new StringBuilder();
            Thread.getAllStackTraces().forEach((thread, frames) -> {
                if (thread.getName().startsWith(scheduler.name()) || thread == closer) {
                    stacks.append(thread).append(' ').append(thread.getState()).append('\n');
                    for (StackTraceElement frame : frames) {
                        stacks.append("    at ").append(frame).append('\n');
                    }
                }
            });
            fail("close() did not return within " + bound + "\n" + scheduler.snapshot() + "\n" + stacks);
        }
    }

    /**
     * Computes, as a virtual thread does between its preemption polls, until {@code done} holds
     * or {@code deadline} ({@code System.nanoTime()}) passes: false then. True as soon as a poll
     * takes a preemption request for this carrier's task: the caller gives way (or not).
     */
    static boolean computeUntilAskedToYield(BooleanSupplier done, long deadline) {
        while (System.nanoTime() - deadline < 0 && !done.getAsBoolean()) {
            if (LoomSupport.preemptPending()
                    && LoomSupport.takePreemptRequest(Thread.currentThread())) {
                return true;
            }
        }
        return false;
    }

    /**
     * Under the scheduler lock: reserves parked carrier {@code m} as a waker does (the carriers
     * taken off the idle list before it go back), looking at up to {@code tries} of them; null if
     * it was not among them.
     */
    static Parking.Reservation reserveParked(Parking parking, Carrier m, int tries) {
        for (int i = 0; i < tries; i++) {
            Parking.Reservation r = parking.reserveCarrier();
            if (r.parked() == m) {
                return r;
            }
            parking.unreserveCarrier(r);
        }
        return null;
    }

    /** Busy-waits, so the carrier stays on its P. */
    static void spin(Duration duration) {
        long end = System.nanoTime() + duration.toNanos();
        while (System.nanoTime() - end < 0) {
            Thread.onSpinWait();
        }
    }
}
