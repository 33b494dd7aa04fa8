package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.concurrent.atomic.LongAdder;

/**
 * What sysmon does at each round (Go's {@code retake}): it looks at every busy P (not the idle
 * ones: {@link Idle}'s busy mask), in three steps ({@link #round}):
 * <ol>
 *   <li><b>requests preemption</b> ({@link #preempt}) of a P whose schedtick has not moved for
 *       longer than the time slice while it runs a task ({@link Preemption}): the P's next
 *       scheduling decision skips runnext once, and a virtual thread at a preemption poll yields.
 *       Sooner, once the task has run for {@link #GIVE_WAY_AFTER_NANOS}, when work waits for that
 *       P and no P is idle: one of its timers is due (a sleeper's wake-up would otherwise wait for
 *       the rest of the slice), work from outside waits on the global ready lane (one P per
 *       round), or ready tasks that a batch moved into its ring wait there
 *       ({@link #readyBatchWaited});</li>
 *   <li><b>wakes a carrier</b> ({@link #wakeThief}) for work queued behind a long task: a P
 *       running the same task as at the last look with tasks in its queue, or due timers, while
 *       another P is idle and nobody spins. A hand-off into an empty runnext wakes nobody (the
 *       submitter usually blocks at once), so this is what lets another carrier steal it when
 *       the submitter keeps computing. Likewise, once per round, for global work and for any P's
 *       timers overdue by {@link #GIVE_WAY_AFTER_NANOS} while a P is idle and nobody spins (Go's
 *       sysmon starts an M for overdue timers); with no P idle, those make a blocked carrier's P
 *       worth handing off (step 3);</li>
 *   <li><b>hands off</b> ({@link #handOffIfBlocked}) a P whose carrier is blocked inside a task
 *       while there is work for that P: the P is retaken ({@link Processor#retake}) and given to
 *       an idle carrier or a new one, within {@code maxCarriers} (Go's retake of a P in a
 *       syscall). Blocked, at two looks in a row and for long enough, as {@link BlockedCheck}
 *       tells; a futex or monitor wait only while fewer of this JVM's threads want a CPU than it
 *       may use ({@link BlockedCheck#cpuToSpare}): with its CPUs taken such a wait is most likely
 *       for a descheduled lock holder or a collection, and another carrier would only compete for
 *       the same CPUs; but for {@link BlockedCheck#CPU_VETO_LIMIT_NANOS} at most.</li>
 * </ol>
 *
 * <p>All per-P observations ({@link SysmonTick}) belong to the sysmon thread; it reads the Ps'
 * counters and holders with opaque/volatile reads and changes them only by CAS. One observation
 * is also read by other threads: when sysmon first saw a P's current task, which snapshots show
 * as how long that task has been running ({@link #runningNanos}).
 *
 * <p>Each step decides whether to act now, or when to look again ({@link #lookAgainAt}), which
 * sysmon's cadence ({@link Sysmon}) honours.
 *
 * <h2>Failure</h2>
 * What throws here ends the round: sysmon reports it and goes on ({@link Sysmon}). The steps
 * only read the Ps' state and change it by CAS ({@link Preemption#request},
 * {@link Processor#retake}); a hand-off whose carrier cannot be started is reported by
 * {@code Carriers.start} and its work waits on the global queue.
 */
final class Retake implements AutoCloseable {
    /**
     * The longest wait for a second look at a P whose tasks keep ending before they are old
     * enough to tell whether one blocks ({@link SysmonTick#youngLookGap}). A server's stream of short
     * requests would otherwise wake sysmon every {@link BlockedCheck#HANDOFF_AFTER_NANOS} / 2 per P, where Go's
     * sysmon backs off to its longest sleep; it also costs the first blocking task after such a
     * stream up to this much more before its P is handed off.
     */
    static final long YOUNG_LOOK_GAP_MAX_NANOS = 5_000_000;
    /**
     * The longest wait for a look at ready tasks that a batch moved into a P's ring, while that
     * P's batches keep leaving the ring before such looks ({@link SysmonTick#ringLookGap}): a server's
     * steady stream would otherwise wake sysmon every {@link #GIVE_WAY_AFTER_NANOS}. It is also how
     * much later, at most, the first long task after such a stream is asked to give way to them.
     */
    static final long RING_LOOK_GAP_MAX_NANOS = 5_000_000;
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
    private final SysmonTick[] watches;
    /**
     * Ps whose watch holds what sysmon saw of a holder (bit {@code i & 63} of word {@code i >>> 6}):
     * looked at in the next round even if idle by then, to forget the watch once. Sysmon's thread only.
     */
    private final long[] watched;
    /** Sysmon's thread only. */
    private final CollectionSentinel collectionSentinel = new CollectionSentinel();
    /** When a task that work waits behind will have run GIVE_WAY_AFTER_NANOS, or 0. Sysmon's thread only. */
    private long lookAgainAt;
    /**
     * When sysmon first saw ready work wait with no P free and none taken since, or 0. The wait
     * is measured from there: work that has just arrived may well get a P from a task about to
     * end. Sysmon's thread only.
     */
    private long readyWaitingSince;
    /** Whether a task may still give way to the ready lane in this round (one P per round). Sysmon's thread only. */
    private boolean readyGiveWayLeft;
    /**
     * How soon sysmon looks again at outside work that waits with no P free, and how often a
     * nudge may cut its sleep short: {@link #GIVE_WAY_AFTER_NANOS} at first, doubled up to
     * {@link Sysmon#MAX_DELAY_NANOS} each time a look finds that a P took ready work within the last
     * tenth of that (a server under steady load: nothing is stuck, and a look per millisecond was
     * a thousand wake-ups of sysmon a second for nothing), back to the least when a look finds
     * the lane taken from only longer ago (Ps that free up only as long tasks end: work waits
     * between two takes), stuck, or a carrier blocked. Sysmon's thread only.
     */
    private long lookGap = GIVE_WAY_AFTER_NANOS;
    final LongAdder preemptRequests = new LongAdder();
    /** Looks at whether a carrier blocks (tasks old enough to tell, with work waiting): for tests. Sysmon writes it. */
    volatile long blockedChecks;
    /** Ps looked at by the rounds so far ({@link #look}): for tests of the round's bound. Sysmon writes it. */
    volatile long psLooked;
    /** {@link BlockedCheck#cpuToSpare()}, unless a test stands in a machine that never has one ({@link TestSeams#cpuToSpare}). */
    private final java.util.function.BooleanSupplier cpuToSpare;

    Retake(Scheduling scheduling, TestSeams seams) {
        this.scheduling = scheduling;
        this.cpuToSpare = seams.cpuToSpare() != null ? seams.cpuToSpare() : new java.util.function.BooleanSupplier() {
            @Override
            public boolean getAsBoolean() { // not a lambda: made in every JVM's start-up
                return BlockedCheck.cpuToSpare();
            }
        };
        this.timeSliceNanos = scheduling.timeSlice.toNanos();
        this.watches = new SysmonTick[scheduling.allp.length];
        this.watched = new long[ProcMask.words(scheduling.allp.length)];
        ensureWatches(scheduling.procs);
    }

    /**
     * The constructor, or {@link ProcResize} before it publishes Ps up to {@code procs}: makes the
     * watches of Ps {@code [0, procs)} that have none. May throw an {@code OutOfMemoryError}:
     * the watches made stay, unused until their P exists.
     */
    void ensureWatches(int procs) {
        for (int i = 0; i < procs; i++) {
            if (watches[i] == null) {
                watches[i] = new SysmonTick(new BlockedCheck(collectionSentinel));
            }
        }
    }


    /**
     * Any thread: how long the task that P {@code p} is running, its {@code tasksRun}-th, has
     * run at {@code now}, as sysmon saw it ({@link SysmonTick#runningNanos}).
     */
    long runningNanos(Processor p, long tasksRun, long now) {
        return watches[p.id].runningNanos(tasksRun, now);
    }

    /** Sysmon's cadence: when a pending decision wants the next look, or 0. */
    long lookAgainAt() {
        return lookAgainAt;
    }

    /** Sysmon's cadence: it is about to sleep until then; the next round sets it anew. */
    void lookAgainDone() {
        lookAgainAt = 0;
    }

    /** How often a nudge may cut sysmon's sleep short (see {@link #lookGap}'s field). */
    long lookGap() {
        return lookGap;
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
                        ? Math.min(2 * lookGap, Sysmon.MAX_DELAY_NANOS) : GIVE_WAY_AFTER_NANOS;
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
     * ({@link SysmonTick#ringLookGap}).
     */
    private boolean readyBatchWaited(Processor p, SysmonTick watch, long now) {
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

    /**
     * Sysmon's round: looks at every busy P; true if it woke a thief or handed a P off, which is what
     * brings sysmon's cadence back to its shortest. A preemption request does not (Go's
     * {@code retake} counts only the Ps it retook from syscalls): under saturation some task is
     * asked to give way nearly every millisecond, and a cadence reset by each request kept
     * sysmon waking every 20 µs, 13 % of a core on 2 cores for nothing, since each give-way
     * decision already says when the next look is due ({@link #lookAgainAt}).
     */
    boolean round(long now) {
        boolean acted = false;
        // Global work that nobody searches for while a P is idle: a carrier that could not be
        // started left it there (Carriers.start). Try again; not counted as acting, so that a
        // factory that keeps failing is not retried at the shortest cadence.
        // The same for timers overdue by GIVE_WAY_AFTER_NANOS (Go's sysmon starts an M for timers
        // that should have run): on a P whose holder is deep in a task, or on an idle P when no
        // carrier sleeps for the timers (one that could not be started, or a sleeper a hand-off
        // took for a long task while no other carrier was parked). A spinner runs them all.
        if ((!scheduling.global.isEmpty() || scheduling.timers.anyDue(now - GIVE_WAY_AFTER_NANOS))
                && scheduling.idle.idleProcs() > 0 && scheduling.idle.spinning() == 0) {
            scheduling.idle.wakeP();
        }
        // Outside work waits, no P is free to take it, and none has taken any for a while (they
        // all run long tasks): the first long task gives way. While some P keeps taking ready
        // work (a parent whose ring overflows its children there, a server under steady load),
        // the ready lane moves and nobody needs to give way.
        boolean readyWaited = readyWaitedLongEnough(now);
        readyGiveWayLeft = readyWaited;
        // The busy Ps (Idle's busy mask; retired ones still held among them: one gets preemption
        // requests and hand-offs like any other, and HandOff.handOff retires it instead of
        // handing it on), and those sysmon watched at its last round, to forget them once: so a
        // round's work follows the busy Ps, O(busy + Ps / 64), not every P made. A P idle at
        // both rounds has nothing to look at: no holder, an empty queue, a watch forgotten.
        Idle idle = scheduling.idle;
        int n = scheduling.allocated;
        for (int w = 0, words = ProcMask.words(n); w < words; w++) {
            long toLook = idle.busyWord(w) | watched[w];
            for (long bits = toLook; bits != 0; bits &= bits - 1) {
                int i = (w << 6) + Long.numberOfTrailingZeros(bits);
                if (i >= n) {
                    break; // made after our read of allocated: the next round
                }
                acted |= look(scheduling.allp[i], watches[i], i, readyWaited, now);
            }
        }
        return acted;
    }

    /**
     * One P of a round, {@code allp[i]} with its {@code watch}: the three steps of {@link #round}.
     * Records in {@link #watched} whether sysmon watches it (a holder in its loop or in a task),
     * so that the next round forgets it once it is gone. True if it acted.
     */
    private boolean look(Processor p, SysmonTick watch, int i, boolean readyWaited, long now) {
        psLooked++; // sysmon's thread only: a plain increment of a volatile, read by tests
        boolean acted = false;
        long bit = 1L << (i & 63);
        Lease lease = p.holder();
        if (lease == null || lease == Lease.RETAKEN) {
            watch.forget();
            watched[i >>> 6] &= ~bit;
            return false;
        }
        watched[i >>> 6] |= bit;
        Carrier m = lease.carrier;
        boolean inTask = lease == m.inTask || lease == m.busy;
        long runs = p.counted(Counter.TASKS_RUN);
        preempt(p, watch, lease, inTask, runs, readyWaited, now);
        boolean sameTask = inTask && runs == watch.runs;
        if (!sameTask) {
            if (watch.youngLookRuns >= 0 && watch.youngLookRuns == watch.runs) {
                // The task sysmon meant to look at again ended first: this P runs short tasks.
                watch.youngLookGap = Math.min(2 * watch.youngLookGap, YOUNG_LOOK_GAP_MAX_NANOS);
            }
            watch.youngLookRuns = -1;
            watch.sawTask(inTask ? runs : -1, now);
            watch.blocked.reset();
        }
        if (!inTask) {
            return false;
        }
        // With no P idle the task gives way to work that waits for its P (step 1, sooner);
        // with one idle, a carrier takes that work (step 2).
        boolean freeP = scheduling.idle.idleProcs() > 0;
        if (freeP) {
            acted |= wakeThief(p, sameTask, now);
        } else {
            giveWay(p, watch, lease, runs, now);
        }
        acted |= handOffIfBlocked(p, watch, m, runs, now);
        return acted;
    }

    /**
     * Step 1 of a round: a P whose task has run past its time slice while something would run
     * instead (work queued on this P, a due timer of its, a preempted task waiting for its next
     * slice, or outside work that has waited with no P free) is asked to yield. With nothing
     * waiting the task runs on (a yield would only put it back), and is asked at the first look
     * that finds something. True if it asked.
     */
    private boolean preempt(Processor p, SysmonTick watch, Lease lease, boolean inTask, long runs, boolean readyWaited, long now) {
        long schedtick = p.schedtick();
        if (schedtick != watch.schedtick) {
            watch.schedtick = schedtick;
            watch.schedtickSince = now;
            return false;
        }
        if (!inTask || !(readyWaited || scheduling.global.yieldedSize() > 0 || !p.runQueue.isEmpty() || p.timers.hasDue(now))) {
            return false;
        }
        if (now - watch.schedtickSince <= timeSliceNanos) {
            // Something waits: look again when the slice is up, whatever the cadence (a request
            // does not shorten it, so under a long run of hogs it has grown to its longest).
            lookAgain(watch.schedtickSince + timeSliceNanos + 1);
            return false;
        }
        boolean asked = requestPreemption(p, watch, lease, now);
        watch.schedtickSince = now; // ask again after another slice if nothing changes
        return asked;
    }

    /**
     * Step 1, sooner: with no P idle, the task in the way of work that waits for its P gives way
     * once it has run {@link #GIVE_WAY_AFTER_NANOS}: a due timer of the P, outside work on the ready
     * lane ({@link #readyGiveWayLeft}: one P per round), or a ready batch in the P's ring. Once per
     * task: after its poll took the request it is on its way out, and a second request would make
     * the loop skip runnext, where a due timer puts its thread. True if it asked.
     */
    private boolean giveWay(Processor p, SysmonTick watch, Lease lease, long runs, long now) {
        boolean timerDue = p.timers.hasDue(now);
        boolean batchWaits = readyBatchWaited(p, watch, now); // always: it keeps its look-again gap
        if (!(timerDue || readyGiveWayLeft || batchWaits) || p.preemptRequested || watch.gaveWayRuns == runs) {
            return false;
        }
        long since = watch.runsSince;
        long sliceStart = p.preemptedSliceStartedAt(lease.carrier.runningTask());
        if (sliceStart != 0 && sliceStart - since < 0) {
            since = sliceStart; // a preempted task's slice, which began before sysmon first saw it
        }
        long giveWayAt = since + GIVE_WAY_AFTER_NANOS;
        if (giveWayAt - now > 0) {
            lookAgain(giveWayAt); // too young to preempt yet: look again when it is old enough
            return false;
        }
        if (!requestPreemption(p, watch, lease, now)) {
            return false;
        }
        watch.gaveWayRuns = runs;
        // The task gives way at its next poll, to its P's due timers (which then run first) or
        // to the waiting outside work.
        if (batchWaits) {
            watch.ringLookGap = GIVE_WAY_AFTER_NANOS; // a batch waited: look at the least gap
        }
        if (!timerDue) {
            readyGiveWayLeft = false; // one P per round gives way to the ready lane
        }
        return true;
    }

    private boolean requestPreemption(Processor p, SysmonTick watch, Lease lease, long now) {
        if (!Preemption.request(p, lease)) {
            return false;
        }
        preemptRequests.increment();
        if (Events.on()) {
            Events.preemptRequested(p, lease.carrier, now - watch.schedtickSince);
        }
        return true;
    }

    /**
     * Step 2 of a round: the same task as at the last look, with a P idle and nobody spinning:
     * wake a thief for what waits behind it, or for its due timers (a spinner runs other Ps' due
     * timers). True if it woke one.
     */
    private boolean wakeThief(Processor p, boolean sameTask, long now) {
        if (!sameTask || scheduling.idle.spinning() != 0
                || (p.runQueue.isEmpty() && !p.timers.hasDue(now))) {
            return false;
        }
        scheduling.idle.wakeP();
        return true;
    }

    /**
     * Step 3 of a round: the task blocks its carrier, at two looks in a row and for long enough
     * ({@link BlockedCheck}), while work waits for the P: the P goes to another carrier. Work
     * first: the blocked check may read /proc. True if the P was handed off.
     */
    private boolean handOffIfBlocked(Processor p, SysmonTick watch, Carrier m, long runs, long now) {
        BlockedCheck blocked = watch.blocked;
        if (!hasWorkFor(p, now)) {
            blocked.looks = 0;
            return false;
        }
        if (now - watch.runsSince < BlockedCheck.HANDOFF_AFTER_NANOS / 2) {
            // Too young to tell: most tasks end sooner than a hand-off could help, and the
            // native check costs a read of /proc. Look again when it is old enough, or later
            // while this P's tasks keep ending first (youngLookGap).
            watch.youngLookRuns = runs;
            lookAgain(watch.runsSince + watch.youngLookGap);
            return false;
        }
        blockedChecks++; // sysmon's thread only: a plain increment of a volatile, read by tests
        if (blocked.look(m, now) == 0) {
            return false;
        }
        // A task blocks here: look soon again, at it and at what waits.
        watch.youngLookGap = BlockedCheck.HANDOFF_AFTER_NANOS / 2;
        lookGap = GIVE_WAY_AFTER_NANOS;
        long blockedFor = blocked.blockedFor();
        long blockedSince = blocked.blockedSince(watch.runsSince);
        if (blocked.looks < 2 || now - blockedSince < blockedFor) {
            // Blocked at this look, with work waiting: look again soon rather than at the
            // cadence of a quiet scheduler.
            lookAgain(Math.max(now + Sysmon.MIN_DELAY_NANOS, blockedSince + blockedFor));
            return false;
        }
        if (blocked.futexOrMonitorWait() && now - blockedSince < BlockedCheck.CPU_VETO_LIMIT_NANOS
                && !cpuToSpare.getAsBoolean()) {
            // A futex or monitor wait while this JVM has no CPU to spare is most likely a wait
            // for a descheduled thread: a lock's holder, the JVM collecting. Another carrier
            // would only compete for the same CPUs. Look again when the time has passed anew,
            // but no longer than CPU_VETO_LIMIT_NANOS in all.
            lookAgain(Math.min(now + BlockedCheck.FUTEX_HANDOFF_AFTER_NANOS, blockedSince + BlockedCheck.CPU_VETO_LIMIT_NANOS));
            return false;
        }
        Carrier to = scheduling.handOff.handOff(p, m); // counts it in handoffs
        if (to == null) {
            return false;
        }
        if (Events.on()) {
            Events.handoff(p, m, to, now - watch.runsSince);
        }
        watch.forget();
        return true;
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
                && (!scheduling.global.isEmpty() || scheduling.timers.anyDue(now - GIVE_WAY_AFTER_NANOS));
    }





    @Override
    public void close() {
        for (SysmonTick watch : watches) {
            if (watch != null) {
                watch.blocked.close();
            }
        }
    }
}
