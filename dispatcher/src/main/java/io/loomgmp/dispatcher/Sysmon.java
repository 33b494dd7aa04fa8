package io.loomgmp.dispatcher;

import java.util.concurrent.locks.LockSupport;

/**
 * sysmon: one daemon platform thread with no P that watches the Ps (Go's {@code sysmon}): it
 * wakes at the cadence below and at each round looks at every busy P ({@link Retake}: preemption,
 * thief wake-ups, hand-offs of blocked carriers).
 * <h2>When it looks</h2>
 * Go's cadence: 20 µs between rounds after a round that acted (woke a thief or handed a P off;
 * a preemption request is not acting, as in Go), doubling after 50 rounds that did nothing, up to
 * 10 ms; and no later than the earliest timer of any P, or than a decision it has
 * pending (a task that work waits behind reaching {@link Retake#GIVE_WAY_AFTER_NANOS}, a ready batch
 * in a ring reaching it, a carrier that looked blocked once reaching its second look). While every P is idle there is nothing to
 * preempt or hand off: it skips its rounds and sleeps 10 ms at a time, and after
 * {@link #DEEP_SLEEP_AFTER_NANOS} of that it parks until a P is taken again. Work queued while
 * every P is busy wakes it from a long sleep for one round at once (a pinned carrier may be what
 * keeps them busy); that round changes the cadence only if it acts. A server whose Ps go idle
 * between requests thus costs sysmon a wake-up every few milliseconds, not one per request.
 *
 * <h2>Failure</h2>
 * A round that throws (an {@code OutOfMemoryError}, a bug) is reported as a
 * {@link SchedulerFailure.Site#SYSMON} failure, and sysmon goes on after a long sleep: losing
 * sysmon would silently end preemption, hand-offs and thief wake-ups for the rest of the JVM's
 * life. A carrier that cannot be started for a hand-off is reported by {@code Carriers.start};
 * the P's work then waits on the global queue, and each round wakes a carrier for global work
 * that no carrier is searching for, so the scheduler picks up again once threads can be had.
 *
 * <h2>Off</h2>
 * A scheduler built without sysmon (a package-private test option) never starts the thread: no
 * preemption, no hand-off, no thief wake-up, so that tests of the wake-up protocols fail when a
 * wake-up is lost instead of being rescued within milliseconds.
 */
final class Sysmon implements Runnable {
    static final long MIN_DELAY_NANOS = 20_000;
    static final long MAX_DELAY_NANOS = 10_000_000;
    /** Rounds without action before the delay starts doubling (Go's value). */
    static final int IDLE_ROUNDS_BEFORE_BACKOFF = 50;
    /** A delay at or above this counts as a long sleep, which new work on busy Ps cuts short. */
    private static final long LONG_SLEEP_NANOS = 1_000_000;
    /**
     * How long every P must have been idle before sysmon parks until one is taken again. Until
     * then it sleeps {@link #MAX_DELAY_NANOS} at a time, so that a server whose Ps go idle between
     * requests does not pay an unpark of sysmon on each request's submission path.
     */
    static final long DEEP_SLEEP_AFTER_NANOS = 1_000_000_000;

    private final Scheduling scheduling;
    private final Thread thread;
    private volatile boolean sleepingDeeply;
    /** The cadence: the sleep between two rounds. Sysmon's thread only, as are the next two. */
    private long delay = MIN_DELAY_NANOS;
    /** Rounds in a row that did nothing. */
    private int idleRounds;
    /** When every P was first seen idle, or 0 while some P is busy. */
    private long idleSince;
    /** When a nudge last cut a sleep short. Sysmon's thread only. */
    private long nudgedAt;
    /** When the current timed sleep ends ({@code System.nanoTime()}); far in the future while awake or deeply asleep. */
    private volatile long wakeAt = Long.MAX_VALUE;
    private volatile boolean sleepingLong;

    /** Rounds that looked at the Ps, and those of them that acted: for tests of the cadence. Sysmon writes them. */
    volatile long rounds;
    volatile long actedRounds;
    /** Rounds whose sleep a pending second look ({@code Retake.lookAgainAt}) cut short; single writer. */
    volatile long lookAgainRounds;
    /** False in the tests' deterministic mode: no thread, no rounds. */
    final boolean enabled;
    /** What each round does; its state is sysmon's thread's, but for what it says it publishes. */
    final Retake retake;

    Sysmon(Scheduling scheduling, boolean enabled, TestSeams seams) {
        this.scheduling = scheduling;
        this.enabled = enabled;
        this.retake = new Retake(scheduling, seams);
        this.thread = new Thread(null, this, scheduling.name + "-sysmon", 0, false);
        thread.setDaemon(true);
    }

    /**
     * Any thread: how long the task that P {@code p} is running, its {@code tasksRun}-th, has run
     * at {@code now} as sysmon saw it ({@link SysmonTick#runningNanos}); -1 with sysmon off.
     */
    long runningNanos(Processor p, long tasksRun, long now) {
        return enabled ? retake.runningNanos(p, tasksRun, now) : -1;
    }

    /** Starts the thread, unless sysmon is off. */
    void start() {
        if (enabled) {
            thread.start();
        }
    }

    /** After the scheduler terminated: wakes the thread so it ends. */
    void stop() {
        LockSupport.unpark(thread);
    }

    /** The thread, to be joined after {@link #stop} (never started if sysmon is off: a join returns at once). */
    Thread thread() {
        return thread;
    }

    /**
     * Any thread: work came back to an idle P (sysmon leaves its deep sleep). The read of the
     * flag follows the caller's volatile write of the idle count: see {@link #run} for the pairing.
     */
    void wake() {
        if (sleepingDeeply) {
            LockSupport.unpark(thread);
        }
    }

    /**
     * Any thread: a timer due at {@code when} became the earliest of its P's heap while every P
     * is busy. Sysmon wakes by then, to ask the task in its way to give way.
     */
    void timerAdded(long when) {
        long wake = wakeAt;
        if (wake != Long.MAX_VALUE && when - wake < 0) {
            LockSupport.unpark(thread);
        }
    }

    /** Any thread: a carrier's start was left to sysmon ({@link Carriers#startFor}); wake now. */
    void wakeForStarts() {
        LockSupport.unpark(thread);
    }

    /** Any thread: work was queued while every P is busy; cut a long sleep short. */
    void nudge() {
        if (sleepingLong) {
            sleepingLong = false;
            LockSupport.unpark(thread);
        }
    }

    @Override
    public void run() {
        try {
            watch();
        } finally {
            retake.close();
        }
    }

    /** Sysmon's loop, until the scheduler terminates. */
    private void watch() {
        // Load the /proc readers' classes now, on sysmon's own thread, rather than in the middle
        // of the first hand-off decision (which otherwise took milliseconds).
        NativeThreadState self = NativeThreadState.of(NativeThreadState.currentThreadId());
        if (self != null) {
            self.look();
            self.close();
        }
        while (!scheduling.shutdown.isTerminated()) {
            try {
                round();
            } catch (Throwable failure) {
                scheduling.failures.report(SchedulerFailure.Site.SYSMON, failure,
                        "sysmon goes on after " + MAX_DELAY_NANOS / 1_000_000 + " ms");
                LockSupport.parkNanos(this, MAX_DELAY_NANOS);
                delay = MAX_DELAY_NANOS;
            }
        }
    }

    /** One round: sleep as long as the cadence says, then look at every busy P. */
    private void round() {
        scheduling.carriers.startDeferred();
        long now = System.nanoTime();
        long sleep;
        if (scheduling.resize.hasStrandedTimers()) {
            scheduling.resize.retryStrandedTimers(); // a failed move's timers, onto the active Ps
        }
        if (allIdle()) {
            if (idleSince == 0) {
                idleSince = now;
            }
            if (now - idleSince >= DEEP_SLEEP_AFTER_NANOS) {
                deepSleep();
                idleSince = 0;
                return;
            }
            sleep = MAX_DELAY_NANOS; // nothing runs, so nothing to look at
        } else {
            idleSince = 0;
            // Wake when the next timer comes due, or when a decision is pending, to look again then.
            sleep = delay;
            long untilTimer = scheduling.timers.delay(now);
            if (untilTimer > 0 && untilTimer < sleep) {
                sleep = untilTimer;
            }
            long lookAgainAt = retake.lookAgainAt();
            if (lookAgainAt != 0 && lookAgainAt - now < sleep) {
                sleep = lookAgainAt - now;
                lookAgainRounds++; // single writer
            }
            sleep = Math.max(MIN_DELAY_NANOS, sleep);
        }
        retake.lookAgainDone();
        wakeAt = now + sleep; // before the park: a timer added earlier than this unparks us
        // A nudge may cut a long sleep short, at most once per lookGap: under a steady stream
        // of outside work on busy Ps, one look per millisecond is enough, and fewer while the
        // Ps keep taking it.
        boolean nudgeable = sleep >= LONG_SLEEP_NANOS && now - nudgedAt >= retake.lookGap();
        sleepingLong = nudgeable;
        LockSupport.parkNanos(this, sleep);
        wakeAt = Long.MAX_VALUE;
        scheduling.carriers.startDeferred(); // perhaps what woke us
        if (nudgeable && !sleepingLong) {
            nudgedAt = System.nanoTime();
        }
        sleepingLong = false;
        if (allIdle()) {
            return;
        }
        rounds++; // single writer, so a volatile read and write suffice
        if (retake.round(System.nanoTime())) {
            actedRounds++;
            idleRounds = 0;
            delay = MIN_DELAY_NANOS;
        } else if (++idleRounds > IDLE_ROUNDS_BEFORE_BACKOFF) {
            delay = Math.min(delay * 2, MAX_DELAY_NANOS);
        }
    }

    /** Every P has been idle for a while: park until one is taken ({@link #wake}). */
    private void deepSleep() {
        // Publish the deep sleep, then look again: a P taken after our first look either sees
        // the flag (Idle.getP calls wake) or is seen by this second look.
        sleepingDeeply = true;
        if (allIdle() && !scheduling.shutdown.isTerminated()) {
            LockSupport.park(this);
        }
        sleepingDeeply = false;
    }

    private boolean allIdle() {
        // Timers do not keep sysmon awake while a parked carrier sleeps until the earliest one
        // (Idle); with nobody sleeping for them (no carrier could be started), sysmon does.
        // A retired P still held may run a task: sysmon keeps watching it until it is given up.
        return scheduling.idle.idleProcs() == scheduling.procs && scheduling.global.isEmpty()
                && scheduling.resize.retiring() == 0
                && (scheduling.parking.sleeper() != null || scheduling.timers.delay(System.nanoTime()) < 0);
    }

}
