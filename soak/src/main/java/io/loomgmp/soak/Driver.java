package io.loomgmp.soak;

import java.time.Duration;
import java.util.SplittableRandom;
import java.util.concurrent.locks.LockSupport;

/**
 * A platform thread that makes one kind of trouble, a step at a time, until {@link #stop} is
 * called. What a step throws is a {@link Ledger.Violation#UNEXPECTED_FAILURE} that ends the
 * driver (the soak goes on without it and fails at the end). Its random numbers come from the
 * soak's seed.
 */
abstract class Driver {
    final String name;
    final Ledger ledger;
    final SplittableRandom random;
    private volatile boolean stopping;
    private Thread thread;

    Driver(String name, Ledger ledger, SplittableRandom random) {
        this.name = name;
        this.ledger = ledger;
        this.random = random;
    }

    /** Called once. */
    final void start() {
        thread = Thread.ofPlatform().daemon().name("soak-" + name).start(this::loop);
    }

    private void loop() {
        try {
            while (!stopping) {
                step();
            }
        } catch (Throwable e) {
            ledger.violation(Ledger.Violation.UNEXPECTED_FAILURE, "driver " + name + " failed: " + e);
            e.printStackTrace();
        } finally {
            try {
                stopped();
            } catch (Throwable e) {
                ledger.violation(Ledger.Violation.UNEXPECTED_FAILURE, "driver " + name + " failed stopping: " + e);
                e.printStackTrace();
            }
        }
    }

    /** One step of trouble; should return within a few seconds, so that {@link #stop} takes effect. */
    abstract void step() throws Exception;

    /** Runs on the driver's thread after its last step: undo what must not outlive the driver. */
    void stopped() throws Exception {
    }

    /** Asks the driver to stop after its current step. */
    final void stop() {
        stopping = true;
        LockSupport.unpark(thread);
    }

    final boolean stopping() {
        return stopping;
    }

    /** Waits up to {@code bound} for the driver's thread to end; whether it did. */
    final boolean awaitStopped(Duration bound) throws InterruptedException {
        return thread.join(bound);
    }

    /** Sleeps for about {@code nanos}, or less if asked to stop. */
    final void pause(long nanos) {
        long end = System.nanoTime() + nanos;
        for (long left = nanos; left > 0 && !stopping; left = end - System.nanoTime()) {
            LockSupport.parkNanos(this, left);
        }
    }

    final void pauseMillis(long min, long max) {
        pause(Duration.ofMillis(random.nextLong(min, max)).toNanos());
    }
}
