package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.AbstractQueuedSynchronizer;
import java.util.concurrent.locks.LockSupport;
import java.util.concurrent.locks.ReentrantLock;
import java.util.concurrent.locks.ReentrantReadWriteLock;

/**
 * sysmon: one daemon platform thread with no P that watches the Ps (Go's {@code sysmon} and
 * {@code retake}). Each round it
 * <ol>
 *   <li><b>requests preemption</b> of a P whose schedtick has not moved for longer than the time
 *       slice while it runs a task ({@link Preemption}): the P's next scheduling decision skips
 *       runnext once, and a virtual thread at a preemption poll yields. Sooner, once the task has
 *       run for {@link #GIVE_WAY_AFTER_NANOS}, when work waits for that P: one of its timers is
 *       due (a sleeper's wake-up would otherwise wait for the rest of the slice), work from
 *       outside waits on the global ready lane with no idle P to take it (one P per round), or
 *       ready tasks that a batch moved into its ring wait there ({@link #readyBatchWaited});</li>
 *   <li><b>hands off</b> a P whose carrier is blocked inside a task while there is work for that
 *       P: the P is retaken ({@link Processor#retake}) and given to an idle carrier or a new one,
 *       within {@code maxCarriers} (Go's retake of a P in a syscall). Blocked means, in the same
 *       task for at least {@link #HANDOFF_AFTER_NANOS} and at two looks in a row: thread state
 *       WAITING or TIMED_WAITING (parked, pinned virtual thread) other than waiting to acquire
 *       a lock ({@link #isQueuedForALock}); BLOCKED on a monitor, or waiting for such a
 *       lock, for {@link #FUTEX_HANDOFF_AFTER_NANOS}, with the same CPU rule as a futex below; or RUNNABLE for
 *       the JVM but asleep
 *       in the kernel ({@link NativeThreadState}), without being put on a CPU
 *       in between (nor a garbage collection ending meanwhile, {@link CollectionSentinel}: an
 *       allocating thread waits for it), for {@link #NATIVE_HANDOFF_AFTER_NANOS} (on
 *       I/O, a pipe, a FIFO) or {@link #FUTEX_HANDOFF_AFTER_NANOS} (in a futex: waiting for a
 *       class initialiser, or for the JVM itself; and then only while fewer of this JVM's
 *       threads want a CPU than it may use ({@link #cpuToSpare}): with its CPUs taken such a wait
 *       is most likely for a descheduled lock holder or a collection, and another carrier would
 *       only compete for the same CPUs; but for {@link #CPU_VETO_LIMIT_NANOS} at most), looked
 *       at no more often than every {@link #NATIVE_CHECK_NANOS}.</li>
 *   <li><b>wakes a carrier</b> for work queued behind a long task: a P running the same task as
 *       at the last look with tasks in its queue while another P is idle and nobody spins. A
 *       hand-off into an empty runnext wakes nobody (the submitter usually blocks at once), so
 *       this is what lets another carrier steal it when the submitter keeps computing. Likewise
 *       for global work, and for any P's timers overdue by {@link #GIVE_WAY_AFTER_NANOS}, while a
 *       P is idle and nobody spins (Go's sysmon starts an M for overdue timers); with no P idle,
 *       those make a blocked carrier's P worth handing off (step 2).</li>
 * </ol>
 * <h2>When it looks</h2>
 * Go's cadence: 20 µs between rounds after a round that acted, doubling after 50 rounds that did
 * nothing, up to 10 ms; and no later than the earliest timer of any P, or than a decision it has
 * pending (a task that work waits behind reaching {@link #GIVE_WAY_AFTER_NANOS}, a ready batch
 * in a ring reaching it, a carrier that looked blocked once reaching its second look). While every P is idle there is nothing to
 * preempt or hand off: it skips its rounds and sleeps 10 ms at a time, and after
 * {@link #DEEP_SLEEP_AFTER_NANOS} of that it parks until a P is taken again. Work queued while
 * every P is busy wakes it from a long sleep for one round at once (a pinned carrier may be what
 * keeps them busy); that round changes the cadence only if it acts. A server whose Ps go idle
 * between requests thus costs sysmon a wake-up every few milliseconds, not one per request.
 *
 * <p>All per-P observations ({@link Watch}) belong to the sysmon thread; it reads the Ps'
 * counters and holders with opaque/volatile reads and changes them only by CAS. One observation
 * is also read by other threads: when sysmon first saw a P's current task, which snapshots show
 * as how long that task has been running ({@link #runningNanos}).
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
    /**
     * How long a carrier must stay blocked in one task before its P is handed off: long enough
     * that a brief wait inside the JDK (a lock taken while unparking) does not cost a carrier.
     */
    static final long HANDOFF_AFTER_NANOS = 100_000;
    /**
     * The longest wait for a second look at a P whose tasks keep ending before they are old
     * enough to tell whether one blocks ({@link Watch#youngLookGap}). A server's stream of short
     * requests would otherwise wake sysmon every {@link #HANDOFF_AFTER_NANOS} / 2 per P, where Go's
     * sysmon backs off to its longest sleep; it also costs the first blocking task after such a
     * stream up to this much more before its P is handed off.
     */
    static final long YOUNG_LOOK_GAP_MAX_NANOS = 5_000_000;
    /**
     * The longest wait for a look at ready tasks that a batch moved into a P's ring, while that
     * P's batches keep leaving the ring before such looks ({@link Watch#ringLookGap}): a server's
     * steady stream would otherwise wake sysmon every {@link #GIVE_WAY_AFTER_NANOS}. It is also how
     * much later, at most, the first long task after such a stream is asked to give way to them.
     */
    static final long RING_LOOK_GAP_MAX_NANOS = 5_000_000;
    /** Least time between two {@code /proc} looks at the same carrier. */
    static final long NATIVE_CHECK_NANOS = 250_000;
    /**
     * How long a carrier that the JVM calls RUNNABLE must be seen asleep in the kernel before its
     * P is handed off. Longer than {@link #HANDOFF_AFTER_NANOS}: a thread also sleeps in the
     * kernel, for a while, when it waits inside the JVM (for a safepoint or a collection it
     * triggered, on a VM lock, for a page), and none of those is its task blocking it.
     */
    static final long NATIVE_HANDOFF_AFTER_NANOS = 1_000_000;
    /**
     * The same for a carrier asleep in a futex, which is how a thread waits for another's class
     * initialiser, but also for a safepoint or a collection, or on a JVM lock whose holder is
     * descheduled: those last milliseconds on a loaded machine, so a futex wait counts as
     * blocking only once it has lasted this long.
     */
    static final long FUTEX_HANDOFF_AFTER_NANOS = 10_000_000;
    /**
     * The longest a futex or monitor wait is left alone for want of a spare CPU
     * ({@link #cpuToSpare}): after this, it is handed off all the same. A descheduled lock holder
     * gets a CPU within a few scheduler periods (Linux's is at most 24 ms), so a wait this long is
     * a wait for something the blocked carrier's own P must run first (a task queued behind it):
     * without a bound that was a deadlock for as long as the machine stayed busy.
     */
    static final long CPU_VETO_LIMIT_NANOS = 100_000_000;
    /**
     * How long a task may run before it gives way to work that waits for its P (a due timer, work
     * from outside with no idle P): about Linux CFS's minimum granularity. Shorter would preempt
     * tasks that are about to end anyway; the time slice is the bound when nothing waits.
     */
    static final long GIVE_WAY_AFTER_NANOS = 1_000_000;

    private final Scheduling scheduling;
    private final long timeSliceNanos;
    /**
     * One per P made, by id ({@code watches[i]} for {@code allp[i]}): written before the P's id
     * is published through {@code Scheduling.allocated} ({@link #ensureWatches}, which
     * {@link ProcResize} calls first), and read only below it.
     */
    private final Watch[] watches;
    /** Sysmon's thread only. */
    private final CollectionSentinel collectionSentinel = new CollectionSentinel();
    private final Thread thread;
    private volatile boolean sleepingDeeply;
    /** The cadence: the sleep between two rounds. Sysmon's thread only, as are the next two. */
    private long delay = MIN_DELAY_NANOS;
    /** Rounds in a row that did nothing. */
    private int idleRounds;
    /** When every P was first seen idle, or 0 while some P is busy. */
    private long idleSince;
    /** When a task that work waits behind will have run GIVE_WAY_AFTER_NANOS, or 0. Sysmon's thread only. */
    private long lookAgainAt;
    /**
     * When sysmon first saw ready work wait with no P free and none taken since, or 0. The wait
     * is measured from there: work that has just arrived may well get a P from a task about to
     * end. Sysmon's thread only.
     */
    private long readyWaitingSince;
    /** When a nudge last cut a sleep short. Sysmon's thread only. */
    private long nudgedAt;
    /**
     * How soon sysmon looks again at outside work that waits with no P free, and how often a
     * nudge may cut its sleep short: {@link #GIVE_WAY_AFTER_NANOS} at first, doubled up to
     * {@link #MAX_DELAY_NANOS} each time a look finds that a P took ready work within the last
     * tenth of that (a server under steady load: nothing is stuck, and a look per millisecond was
     * a thousand wake-ups of sysmon a second for nothing), back to the least when a look finds
     * the lane taken from only longer ago (Ps that free up only as long tasks end: work waits
     * between two takes), stuck, or a carrier blocked. Sysmon's thread only.
     */
    private long lookGap = GIVE_WAY_AFTER_NANOS;
    /** When the current timed sleep ends ({@code System.nanoTime()}); far in the future while awake or deeply asleep. */
    private volatile long wakeAt = Long.MAX_VALUE;
    private volatile boolean sleepingLong;

    final LongAdder preemptRequests = new LongAdder();
    /** Rounds that looked at the Ps, and those of them that acted: for tests of the cadence. Sysmon writes them. */
    volatile long rounds;
    volatile long actedRounds;
    /** Looks at whether a carrier blocks (tasks old enough to tell, with work waiting): for tests. Sysmon writes it. */
    volatile long blockedChecks;
    /** {@link #cpuToSpare()}; tests stand in a machine that never has one. Read by sysmon's thread. */
    volatile java.util.function.BooleanSupplier cpuToSpare = new java.util.function.BooleanSupplier() {
        @Override
        public boolean getAsBoolean() { // not a lambda: made in every JVM's start-up
            return cpuToSpare();
        }
    };
    /** False in the tests' deterministic mode: no thread, no rounds. */
    final boolean enabled;

    /** What sysmon saw of one P at its last look. */
    private static final class Watch {
        long schedtick = -1;
        long schedtickSince;
        /**
         * The P's tasks-run count when the current task was first seen, or -1. With
         * {@link #runsSince}, the one observation other threads read ({@link #runningNanos}): a
         * seqlock whose sequence is this count, written through {@link #sawTask} and
         * {@link #forget}. Sysmon, the only writer, reads both plainly.
         */
        long runs = -1;
        /** When the current task was first seen running; see {@link #runs}. */
        long runsSince;
        /** Looks in a row at which the carrier was blocked. */
        int blockedLooks;
        /** When {@code /proc} was last read for this P's carrier. */
        long nativeCheckedAt;
        /** When {@code /proc} first showed this task's carrier asleep, at looks since in a row; 0 if not. */
        long nativeAsleepSince;
        /** Whether every look since {@link #nativeAsleepSince} found the carrier in a futex wait. */
        boolean futexOnly;
        /** The carrier's {@link NativeThreadState#slices()} then: any change means it woke up in between. */
        long slicesAtAsleep;
        /** Garbage collections ended by then: a thread that allocates waits for them in a futex. */
        long collectionsAtAsleep;
        /**
         * How long after a task was first seen to look at it again when it was too young to tell
         * whether it blocks: {@link #HANDOFF_AFTER_NANOS} / 2 at first, doubled (up to
         * {@link #YOUNG_LOOK_GAP_MAX_NANOS}) each time the task so looked for had ended by the
         * next look, and back to the least once a look finds a carrier blocked.
         */
        long youngLookGap = HANDOFF_AFTER_NANOS / 2;
        /** The tasks-run count of the task a look-again was last set for, or -1. */
        long youngLookRuns = -1;
        /**
         * How long after a ready batch was grabbed into this P's ring to look whether it still
         * waits there ({@link #readyBatchWaited}): {@link #GIVE_WAY_AFTER_NANOS} at first, doubled
         * (up to {@link #RING_LOOK_GAP_MAX_NANOS}) each time the batch so looked for had left the
         * ring by the next look, and back to the least once a task gives way to one.
         */
        long ringLookGap = GIVE_WAY_AFTER_NANOS;
        /** When the batch a look-again was last set for was grabbed, or 0. */
        long ringLookFor;
        /** The tasks-run count of the task last asked to give way, so that it is asked once. */
        long gaveWayRuns = -1;
        /** The {@code /proc} view of the carrier last checked for native blocking, kept open. */
        NativeThreadState nativeState;

        /** The view of OS thread {@code tid}, reopened when the P's carrier changed; null if unreadable. */
        NativeThreadState nativeStateOf(long tid) {
            if (nativeState == null || nativeState.tid() != tid) {
                if (nativeState != null) {
                    nativeState.close();
                }
                nativeState = NativeThreadState.of(tid);
            }
            return nativeState;
        }

        /**
         * Sysmon: the P runs its {@code runs}-th task (-1: none) as first seen {@code since}. The
         * count goes to -1 before {@link #runsSince} changes, and to its new value after, so a
         * reader that finds the same count before and after reading {@code runsSince} read the
         * time that goes with it (see {@link #runningNanos}). The counts of successive tasks only
         * grow, so a reader never mistakes a later task for the one it started reading.
         */
        void sawTask(long runs, long since) {
            RUNS.setOpaque(this, -1L);
            VarHandle.storeStoreFence(); // a reader that sees the new time sees the -1 too
            RUNS_SINCE.setOpaque(this, since);
            RUNS.setRelease(this, runs);
        }

        void forget() {
            schedtick = -1;
            RUNS.setOpaque(this, -1L); // the time alone does not change: nothing to order
            blockedLooks = 0;
            nativeAsleepSince = 0;
        }
    }

    Sysmon(Scheduling scheduling, boolean enabled) {
        this.scheduling = scheduling;
        this.enabled = enabled;
        this.timeSliceNanos = scheduling.timeSlice.toNanos();
        this.watches = new Watch[scheduling.allp.length];
        ensureWatches(scheduling.procs);
        this.thread = new Thread(null, this, scheduling.name + "-sysmon", 0, false);
        thread.setDaemon(true);
    }

    /**
     * The constructor, or {@link ProcResize} before it publishes Ps up to {@code procs}: makes the
     * watches of Ps {@code [0, procs)} that have none. May throw an {@code OutOfMemoryError}:
     * the watches made stay, unused until their P exists.
     */
    void ensureWatches(int procs) {
        for (int i = 0; i < procs; i++) {
            if (watches[i] == null) {
                watches[i] = new Watch();
            }
        }
    }

    /**
     * Any thread: how long the task that P {@code p} is running, its {@code tasksRun}-th, has
     * run at {@code now} ({@code System.nanoTime()}), as sysmon saw it: since sysmon's first look
     * at it, so short by up to one look's interval (10 ms at most while a P is busy, as long as
     * sysmon gets a CPU). 0 when sysmon has not looked at that task yet (it started after the
     * last look, or ended meanwhile); -1 with sysmon off.
     */
    long runningNanos(Processor p, long tasksRun, long now) {
        if (!enabled) {
            return -1;
        }
        Watch watch = watches[p.id];
        // Seqlock read (writer: Watch.sawTask). Acquire: the time written before this count is
        // visible; the fence keeps the second read of the count after the read of the time.
        long seen = (long) RUNS.getAcquire(watch);
        long since = (long) RUNS_SINCE.getOpaque(watch);
        VarHandle.loadLoadFence();
        if (seen != tasksRun || (long) RUNS.getOpaque(watch) != seen) {
            return 0;
        }
        return Math.max(0, now - since);
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
            for (Watch watch : watches) {
                if (watch != null && watch.nativeState != null) {
                    watch.nativeState.close();
                }
            }
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

    /** One round: sleep as long as the cadence says, then look at every P. */
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
            long untilTimer = scheduling.timerDelay(now);
            if (untilTimer > 0 && untilTimer < sleep) {
                sleep = untilTimer;
            }
            if (lookAgainAt != 0 && lookAgainAt - now < sleep) {
                sleep = lookAgainAt - now;
            }
            sleep = Math.max(MIN_DELAY_NANOS, sleep);
        }
        lookAgainAt = 0;
        wakeAt = now + sleep; // before the park: a timer added earlier than this unparks us
        // A nudge may cut a long sleep short, at most once per lookGap: under a steady stream
        // of outside work on busy Ps, one look per millisecond is enough, and fewer while the
        // Ps keep taking it.
        boolean nudgeable = sleep >= LONG_SLEEP_NANOS && now - nudgedAt >= lookGap;
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
        if (retake(System.nanoTime())) {
            actedRounds++;
            idleRounds = 0;
            delay = MIN_DELAY_NANOS;
        } else if (++idleRounds > IDLE_ROUNDS_BEFORE_BACKOFF) {
            delay = Math.min(delay * 2, MAX_DELAY_NANOS);
        }
    }

    /**
     * Whether outside work has waited GIVE_WAY_AFTER_NANOS in the ready lane with no P free to
     * take it, by sysmon's looks: from the first look that saw it waiting, or from the last time a
     * P took some, whichever is later. Not yet: sysmon looks again when it will be.
     */
    private boolean readyWaitedLongEnough(long now) {
        if (scheduling.global.readySize() == 0 || scheduling.idle.idleProcs() > 0) {
            readyWaitingSince = 0;
            return false;
        }
        if (readyWaitingSince == 0) {
            readyWaitingSince = now;
        } else {
            long lastTaken = lastReadyTaken();
            if (lastTaken - readyWaitingSince > 0) {
                readyWaitingSince = now;
                // The lane moves. Taken from just now (a server's steady stream): look less
                // often. Only now and then (Ps that finish long tasks): work may wait a
                // millisecond between two takes, so look at the least gap.
                lookGap = now - lastTaken < GIVE_WAY_AFTER_NANOS / 10
                        ? Math.min(2 * lookGap, MAX_DELAY_NANOS) : GIVE_WAY_AFTER_NANOS;
            }
        }
        long giveWayAt = readyWaitingSince + GIVE_WAY_AFTER_NANOS;
        if (giveWayAt - now > 0) {
            long again = readyWaitingSince + lookGap;
            lookAgain(again);
            return false;
        }
        lookGap = GIVE_WAY_AFTER_NANOS; // stuck: look at the least gap until it moves again
        return true;
    }

    /** Sysmon looks again no later than {@code at} (the earliest of the decisions it has pending). */
    private void lookAgain(long at) {
        if (lookAgainAt == 0 || at - lookAgainAt < 0) {
            lookAgainAt = at;
        }
    }

    /**
     * Whether ready tasks that a batch moved into {@code p}'s ring ({@link Processor#readyBatched})
     * have waited there {@link #GIVE_WAY_AFTER_NANOS} behind the task {@code p} runs. Go's
     * {@code globrunqget} takes such a batch too, and its goroutines then wait for the time slice
     * of whatever runs ahead of them, as no other busy P can take them; a server's requests so
     * waited behind CPU-heavy ones for two slices. Not yet: sysmon looks again when they will
     * have, or later while this P's batches keep leaving the ring before such a look
     * ({@link Watch#ringLookGap}).
     */
    private boolean readyBatchWaited(Processor p, Watch watch, long now) {
        long since = p.readyBatchWaitingSince();
        if (watch.ringLookFor != 0 && watch.ringLookFor != since) {
            // The batch a look was set for left the ring before it: this P's batches move.
            watch.ringLookGap = Math.min(2 * watch.ringLookGap, RING_LOOK_GAP_MAX_NANOS);
            watch.ringLookFor = 0;
        }
        if (since == 0) {
            return false;
        }
        if (now - since >= GIVE_WAY_AFTER_NANOS) {
            watch.ringLookFor = 0;
            return true;
        }
        watch.ringLookFor = since;
        lookAgain(since + watch.ringLookGap);
        return false;
    }

    /** When a P last took a task from the global ready lane. */
    private long lastReadyTaken() {
        long last = scheduling.allp[0].readyTakenAt();
        for (int i = 1, n = scheduling.procs; i < n; i++) {
            long taken = scheduling.allp[i].readyTakenAt();
            if (taken - last > 0) {
                last = taken;
            }
        }
        return last;
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
                && (scheduling.idle.timerSleeper() != null || scheduling.timerDelay(System.nanoTime()) < 0);
    }

    /** One round over the Ps; true if it requested a preemption or handed a P off. */
    private boolean retake(long now) {
        boolean acted = false;
        // Global work that nobody searches for while a P is idle: a carrier that could not be
        // started left it there (Carriers.start). Try again; not counted as acting, so that a
        // factory that keeps failing is not retried at the shortest cadence.
        // The same for timers overdue by GIVE_WAY_AFTER_NANOS (Go's sysmon starts an M for timers
        // that should have run): on a P whose holder is deep in a task, or on an idle P when no
        // carrier sleeps for the timers (one that could not be started, or a sleeper a hand-off
        // took for a long task while no other carrier was parked). A spinner runs them all.
        if ((!scheduling.global.isEmpty() || scheduling.anyTimerDue(now - GIVE_WAY_AFTER_NANOS))
                && scheduling.idle.idleProcs() > 0 && scheduling.idle.spinning() == 0) {
            scheduling.idle.wakeP();
        }
        // Outside work waits, no P is free to take it, and none has taken any for a while (they
        // all run long tasks): the first long task gives way. While some P keeps taking ready
        // work (a parent whose ring overflows its children there, a server under steady load),
        // the ready lane moves and nobody needs to give way.
        boolean readyWaited = readyWaitedLongEnough(now);
        boolean readyWaits = readyWaited;
        // Every P made, retired ones too: one still held gets preemption requests and hand-offs
        // like any other (Carriers.handOff retires it instead of handing it on).
        for (int i = 0, n = scheduling.allocated; i < n; i++) {
            Processor p = scheduling.allp[i];
            Watch watch = watches[i];
            Lease lease = p.holder;
            if (lease == null || lease == Lease.RETAKEN) {
                watch.forget();
                continue;
            }
            Carrier m = lease.carrier;
            boolean inTask = lease == m.inTask || lease == m.busy;

            // 1. Preemption: the same time slice for too long while running a task, and something
            // would run instead: work queued on this P, a due timer of its, a preempted task
            // waiting for its next slice, or outside work that has waited with no P free. With
            // nothing waiting the task runs on (a yield would only put it back), and is asked at
            // the first look that finds something.
            long schedtick = p.schedtick();
            if (schedtick != watch.schedtick) {
                watch.schedtick = schedtick;
                watch.schedtickSince = now;
            } else if (inTask && now - watch.schedtickSince > timeSliceNanos
                    && (readyWaited || scheduling.global.yieldedSize() > 0 || !p.runQueue.isEmpty() || p.timers.hasDue(now))) {
                if (Preemption.request(p, lease)) {
                    preemptRequests.increment();
                    acted = true;
                    if (Events.on()) {
                        Events.preemptRequested(p, m, now - watch.schedtickSince);
                    }
                }
                watch.schedtickSince = now; // ask again after another slice if nothing changes
            }

            // 2. Work waits for this P: its due timers, or (with no P free) work from outside.
            long runs = p.counted(Counter.TASKS_RUN);
            boolean sameTask = inTask && runs == watch.runs;
            if (!sameTask) {
                if (watch.youngLookRuns >= 0 && watch.youngLookRuns == watch.runs) {
                    // The task sysmon meant to look at again ended first: this P runs short tasks.
                    watch.youngLookGap = Math.min(2 * watch.youngLookGap, YOUNG_LOOK_GAP_MAX_NANOS);
                }
                watch.youngLookRuns = -1;
                watch.sawTask(inTask ? runs : -1, now);
                watch.blockedLooks = 0;
                watch.nativeAsleepSince = 0;
            }
            if (inTask) {
                boolean timerDue = p.timers.hasDue(now);
                boolean freeP = scheduling.idle.idleProcs() > 0;
                boolean batchWaits = !freeP && readyBatchWaited(p, watch, now);
                if (freeP) {
                    // The same task as at the last look: wake a thief for what waits behind it,
                    // or for its due timers (a spinner runs other Ps' due timers).
                    if (sameTask && scheduling.idle.spinning() == 0 && (!p.runQueue.isEmpty() || timerDue)) {
                        scheduling.idle.wakeP();
                        acted = true;
                    }
                } else if ((timerDue || readyWaits || batchWaits) && !p.preemptRequested && watch.gaveWayRuns != runs) {
                    long giveWayAt = watch.runsSince + GIVE_WAY_AFTER_NANOS;
                    if (giveWayAt - now > 0) {
                        // Too young to preempt yet: look again when it is old enough.
                        lookAgain(giveWayAt);
                    } else if (Preemption.request(p, lease)) {
                        // Once per task: after its poll took the request it is on its way out,
                        // and a second request would make the loop skip runnext, where a due
                        // timer puts its thread.
                        watch.gaveWayRuns = runs;
                        // The task gives way at its next poll, to its P's due timers (which then
                        // run first) or to the waiting outside work.
                        if (batchWaits) {
                            watch.ringLookGap = GIVE_WAY_AFTER_NANOS; // a batch waited: look at the least gap
                        }
                        if (!timerDue) {
                            readyWaits = false; // one P per round gives way to outside work
                        }
                        preemptRequests.increment();
                        acted = true;
                        if (Events.on()) {
                            Events.preemptRequested(p, m, now - watch.schedtickSince);
                        }
                    }
                }
            }
            // 3. Hand-off: the task blocks its carrier, at two looks in a row and for long enough,
            // while work waits for the P. Work first: the blocked check may read /proc.
            if (!inTask || !hasWorkFor(p, now)) {
                watch.blockedLooks = 0;
                continue;
            }
            if (now - watch.runsSince < HANDOFF_AFTER_NANOS / 2) {
                // Too young to tell: most tasks end sooner than a hand-off could help, and the
                // native check costs a read of /proc. Look again when it is old enough, or later
                // while this P's tasks keep ending first (youngLookGap).
                long again = watch.runsSince + watch.youngLookGap;
                watch.youngLookRuns = runs;
                lookAgain(again);
                continue;
            }
            blockedChecks++; // sysmon's thread only: a plain increment of a volatile, read by tests
            watch.blockedLooks = blockedLooks(m, watch, now);
            if (watch.blockedLooks == 0) {
                continue;
            }
            // A task blocks here: look soon again, at it and at what waits.
            watch.youngLookGap = HANDOFF_AFTER_NANOS / 2;
            lookGap = GIVE_WAY_AFTER_NANOS;
            long blockedFor = watch.nativeAsleepSince == 0 ? HANDOFF_AFTER_NANOS
                    : watch.futexOnly ? FUTEX_HANDOFF_AFTER_NANOS : NATIVE_HANDOFF_AFTER_NANOS;
            long blockedSince = watch.nativeAsleepSince != 0 ? watch.nativeAsleepSince : watch.runsSince;
            if (watch.blockedLooks < 2 || now - blockedSince < blockedFor) {
                // Blocked at this look, with work waiting: look again soon rather than at the
                // cadence of a quiet scheduler.
                long again = Math.max(now + MIN_DELAY_NANOS, blockedSince + blockedFor);
                lookAgain(again);
                continue;
            }
            if (watch.nativeAsleepSince != 0 && watch.futexOnly && now - blockedSince < CPU_VETO_LIMIT_NANOS
                    && !cpuToSpare.getAsBoolean()) {
                // A futex or monitor wait while this JVM has no CPU to spare is most likely a wait
                // for a descheduled thread: a lock's holder, the JVM collecting. Another carrier
                // would only compete for the same CPUs. Look again when the time has passed anew,
                // but no longer than CPU_VETO_LIMIT_NANOS in all.
                long again = Math.min(now + FUTEX_HANDOFF_AFTER_NANOS, blockedSince + CPU_VETO_LIMIT_NANOS);
                lookAgain(again);
                continue;
            }
            Carrier to = scheduling.carriers.handOff(p, m); // counts it in handoffs
            if (to != null) {
                if (Events.on()) {
                    Events.handoff(p, m, to, now - watch.runsSince);
                }
                watch.forget();
                acted = true;
            }
        }
        return acted;
    }

    /**
     * Work that this P should run now: its own queue or due timers; or, with no idle or spinning
     * P there to take it, global work (Go's condition in retake) or another P's timers overdue by
     * {@link #GIVE_WAY_AFTER_NANOS} (their P's holder is deep in a task that does not yield:
     * Go retakes a P in a syscall, and its new M runs other Ps' timers; so does the carrier this
     * P is handed to, at step 6 of {@code RunLoop.findRunnable}).
     */
    private boolean hasWorkFor(Processor p, long now) {
        if (!p.runQueue.isEmpty() || p.timers.hasDue(now)) {
            return true;
        }
        return scheduling.idle.idleProcs() + scheduling.idle.spinning() == 0
                && (!scheduling.global.isEmpty() || scheduling.anyTimerDue(now - GIVE_WAY_AFTER_NANOS));
    }

    /**
     * Whether carrier {@code m} itself is parked waiting to acquire a {@link ReentrantLock} or
     * {@link ReentrantReadWriteLock}: most likely it waits for another thread's short critical
     * section, not for its task, so it counts as blocked only as late as a monitor wait does. The scheduler's own lock when submitting, or one the JDK takes on the carrier
     * after a virtual thread has unmounted (the timer queue's, when a virtual thread sleeps,
     * which would otherwise cost a hand-off per contended sleep). Latches, semaphores, conditions
     * and a pinned virtual thread's own parks (their blocker is set on the virtual thread, not the
     * carrier) still count as blocked.
     */
    private static boolean isQueuedForALock(Carrier m) {
        Object blocker = LockSupport.getBlocker(m.thread);
        if (!(blocker instanceof AbstractQueuedSynchronizer)) {
            return false;
        }
        Class<?> lock = blocker.getClass().getEnclosingClass(); // ReentrantLock$NonfairSync -> ReentrantLock
        return lock == ReentrantLock.class || lock == ReentrantReadWriteLock.class;
    }

    /**
     * Whether another carrier could run now: fewer of this JVM's threads want a CPU than it may
     * use, {@code availableProcessors()}, which the JDK takes from the container's CPU quota or
     * cpuset where there is one (sysmon itself, which is about to sleep, not counted). This JVM's
     * own threads, not the host's load: in a container whose {@code /proc} shows the host, the
     * host's load can stay high for ever. The host's count ({@code /proc/loadavg}) only where the
     * process's threads cannot be read; true where neither can.
     */
    static boolean cpuToSpare() {
        int runnable = NativeThreadState.runnableThreadsOfThisProcess();
        if (runnable < 0) {
            runnable = NativeThreadState.runnableThreads();
        }
        return runnable < 0 || runnable - 1 < Runtime.getRuntime().availableProcessors();
    }

    /**
     * Looks in a row, this one included, at which carrier {@code m} (in the same task since the
     * watch began) was blocked.
     */
    private int blockedLooks(Carrier m, Watch watch, long now) {
        if (m.startingCarrier) {
            watch.nativeAsleepSince = 0;
            return 0; // in the kernel starting a thread for the scheduler, not blocked by its task
        }
        switch (m.thread.getState()) {
            case BLOCKED -> {
                // Waiting to enter a monitor: most often another thread's short critical section
                // (a class loader's lock while a class loads), long only when its holder is
                // descheduled on a loaded machine. Counted like a futex wait: blocking only once
                // it has lasted FUTEX_HANDOFF_AFTER_NANOS.
                if (watch.nativeAsleepSince == 0) {
                    watch.nativeAsleepSince = now;
                    watch.futexOnly = true;
                }
                return watch.blockedLooks + 1;
            }
            case WAITING, TIMED_WAITING -> {
                if (isQueuedForALock(m)) {
                    // Most often another thread's short critical section; long only when its
                    // holder is descheduled, or when the next owner is a virtual thread queued
                    // behind this very carrier (a convoy: every P can stall so). Counted like a
                    // monitor: blocking once it has lasted FUTEX_HANDOFF_AFTER_NANOS.
                    if (watch.nativeAsleepSince == 0) {
                        watch.nativeAsleepSince = now;
                        watch.futexOnly = true;
                    }
                    return watch.blockedLooks + 1;
                }
                watch.nativeAsleepSince = 0;
                return watch.blockedLooks + 1;
            }
            case RUNNABLE -> {
                if (m.osThreadId < 0) {
                    return 0;
                }
                if (now - watch.nativeCheckedAt < NATIVE_CHECK_NANOS) {
                    return watch.blockedLooks; // too soon to read /proc again: no new look
                }
                watch.nativeCheckedAt = now;
                NativeThreadState state = watch.nativeStateOf(m.osThreadId);
                int look = state == null ? NativeThreadState.RUNNING : state.look();
                if (look == NativeThreadState.RUNNING) {
                    watch.nativeAsleepSince = 0;
                    return 0;
                }
                long slices = state == null ? -1 : state.slices();
                long collections = collectionSentinel.collections();
                if (watch.nativeAsleepSince == 0
                        || slices != watch.slicesAtAsleep || collections != watch.collectionsAtAsleep) {
                    // First seen asleep; or it ran between two looks that both found it asleep: a
                    // carrier descheduled, or stopped at safepoints now and then (a loaded
                    // machine, a busy collector), not one blocked in its task; or a collection
                    // ended meanwhile, which it may have been waiting for. Start over.
                    watch.nativeAsleepSince = now;
                    watch.futexOnly = true;
                    watch.slicesAtAsleep = slices;
                    watch.collectionsAtAsleep = collections;
                }
                watch.futexOnly &= look == NativeThreadState.FUTEX;
                return watch.blockedLooks + 1;
            }
            default -> {
                watch.nativeAsleepSince = 0;
                return 0;
            }
        }
    }

    private static final VarHandle RUNS;
    private static final VarHandle RUNS_SINCE;

    static {
        try {
            RUNS = MethodHandles.lookup().findVarHandle(Watch.class, "runs", long.class);
            RUNS_SINCE = MethodHandles.lookup().findVarHandle(Watch.class, "runsSince", long.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }
}
