package io.loomgmp.soak;

import io.loomgmp.dispatcher.GmpScheduler;

import java.io.PrintStream;
import java.time.Duration;
import java.util.function.IntConsumer;
import java.util.function.LongSupplier;

/**
 * Keeps the soak bounded in time: each stage of it ({@link #stage}) has a deadline, and while
 * work runs, the work settled ({@code progress}) must move at least once every
 * {@code stallBound}. It also keeps the longest stall seen ({@link #longestStall}), for the
 * summary's check that the scheduler never stopped for long. A stage past its deadline, or a stall, is a stuck run: the watchdog prints
 * why and the {@link Evidence} (the scheduler's snapshot and a thread dump) and ends the JVM with
 * status 1 through {@code exit}, so a run never hangs, whatever hangs in it.
 *
 * <p>Its own daemon thread looks once every {@code tick}. {@link #stage} may be called by any
 * thread; its fields are volatile and written before the stage's name, which the look reads
 * first (a look that sees a new name sees the rest of that stage too).
 */
final class Watchdog {
    private final GmpScheduler scheduler;
    private final LongSupplier progress;
    private final PrintStream err;
    private final IntConsumer exit;
    private final Duration stallBound;
    private final Duration tick;
    private volatile boolean expectProgress;
    private volatile long deadline;
    private volatile Duration bound;
    private volatile String stage = "starting";
    private volatile boolean stopped;
    /** The longest time work was expected to settle and none did, as seen at the watchdog's looks; and during what. */
    private volatile long longestStallNanos;
    private volatile String longestStallStage = "-";

    Watchdog(GmpScheduler scheduler, LongSupplier progress, PrintStream err, IntConsumer exit, Duration stallBound, Duration tick) {
        this.scheduler = scheduler;
        this.progress = progress;
        this.err = err;
        this.exit = exit;
        this.stallBound = stallBound;
        this.tick = tick;
    }

    /** Starts the watchdog's thread; the first stage must be set before. */
    void start() {
        Thread.ofPlatform().daemon().name("soak-watchdog").start(this::watch);
    }

    /**
     * From now, {@code what} must end within {@code bound}; if {@code expectProgress}, work must
     * also settle at least once every stall bound meanwhile.
     */
    void stage(String what, Duration bound, boolean expectProgress) {
        this.bound = bound;
        this.deadline = System.nanoTime() + bound.toNanos();
        this.expectProgress = expectProgress;
        this.stage = what;
    }

    /**
     * The longest time, while work was expected to settle, from a look that saw it move to the
     * last look that saw it still or saw it move again: every gap between settlements is counted
     * in whole ticks, so one tick of ordinary pace counts as a stall of one tick.
     */
    Duration longestStall() {
        return Duration.ofNanos(longestStallNanos);
    }

    String longestStallStage() {
        return longestStallStage;
    }

    /** The soak is over: the watchdog stops looking. */
    void stop() {
        stopped = true;
    }

    private void watch() {
        String watched = null;
        long lastProgress = 0;
        long lastMove = 0;
        while (!stopped) {
            try {
                Thread.sleep(tick);
            } catch (InterruptedException e) {
                return;
            }
            String current = stage; // first: see the class comment
            long now = System.nanoTime();
            long settled = progress.getAsLong();
            boolean moved = settled != lastProgress;
            if (expectProgress && current.equals(watched) && now - lastMove > longestStallNanos) {
                // At a look that sees work move again, the stall lasted until some time since the
                // last look: counted whole, so a stall is known to within one tick.
                longestStallNanos = now - lastMove;
                longestStallStage = current;
            }
            if (!current.equals(watched) || moved) {
                watched = current;
                lastProgress = settled;
                lastMove = now;
            }
            if (stopped) {
                return;
            }
            if (now - deadline > 0) {
                fire(current + " did not end within " + bound);
                return;
            }
            if (expectProgress && now - lastMove > stallBound.toNanos()) {
                fire("no work settled for " + stallBound + " during " + current + " (" + settled + " settled so far)");
                return;
            }
        }
    }

    private void fire(String why) {
        err.println("soak: STUCK: " + why + "; the evidence follows");
        err.println(Evidence.of(scheduler));
        err.println("soak: FAILED: stuck (" + why + ")");
        err.flush();
        exit.accept(1);
    }
}
