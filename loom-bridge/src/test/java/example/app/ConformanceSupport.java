package example.app;

import io.loomgmp.bridge.Gmp;
import io.loomgmp.dispatcher.SchedulerSnapshot;

import java.time.Duration;
import java.util.Optional;
import java.util.function.BooleanSupplier;
import java.util.function.Supplier;

/**
 * What the {@code Conformance*} programs share (they run in a JVM forked by
 * {@code VirtualThreadConformanceIT}, with the loom-gmp agent and without it): {@code key=value}
 * output lines, the carrier a virtual thread runs on, and bounded waits that fail with a message
 * saying what was awaited and what was seen instead of hanging. Bounds are generous (the tests run
 * on a busy 2-core CI machine).
 */
final class ConformanceSupport {
    /** How long any precondition may take to come about before the program gives up. */
    static final Duration BOUND = Duration.ofSeconds(20);

    private ConformanceSupport() {
    }

    static void print(String key, Object value) {
        System.out.println(key + "=" + value);
    }

    /** "VirtualThread[#22,name]/runnable@gmp-M0" -> "gmp-M0"; "none" when not mounted. */
    static String carrierOf(Thread thread) {
        String text = thread.toString();
        int at = text.lastIndexOf('@');
        return at < 0 ? "none" : text.substring(at + 1);
    }

    /** Polls {@code condition} until it holds or {@code bound} passed; returns whether it held. */
    static boolean await(BooleanSupplier condition, Duration bound) {
        long deadline = System.nanoTime() + bound.toNanos();
        while (!condition.getAsBoolean()) {
            if (System.nanoTime() - deadline > 0) {
                return false;
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException e) {
                throw new IllegalStateException("interrupted while waiting", e);
            }
        }
        return true;
    }

    /** As {@link #await}, but a timeout is a failure naming what was awaited and what was seen. */
    static void require(BooleanSupplier condition, String what, Supplier<String> seen) {
        if (!await(condition, BOUND)) {
            throw new IllegalStateException("not within " + BOUND.toSeconds() + " s: " + what
                    + "; seen: " + seen.get());
        }
    }

    /** Polls a thread's state until it is {@code expected}; returns the last state seen. */
    static Thread.State awaitState(Thread thread, Thread.State expected) {
        await(() -> thread.getState() == expected, BOUND);
        return thread.getState();
    }

    /** Joins with a bound; a thread still alive after it is a failure naming the thread. */
    static void join(Thread thread) throws InterruptedException {
        if (!thread.join(BOUND)) {
            throw new IllegalStateException("not within " + BOUND.toSeconds() + " s: " + thread
                    + " did not end; state " + thread.getState() + ", stack "
                    + java.util.Arrays.toString(thread.getStackTrace()));
        }
    }

    /** The GMP scheduler's state when the agent runs this JVM, else empty. */
    static Optional<SchedulerSnapshot> gmpSnapshot() {
        return Gmp.scheduler().map(scheduler -> scheduler.snapshot());
    }
}
