package io.loomgmp.dispatcher;

import java.util.concurrent.locks.ReentrantLock;

/**
 * Changing the number of Ps at run time (Go's {@code procresize}, which {@code GOMAXPROCS}
 * triggers), without stopping the world: Go resizes with every P stopped; here carriers keep
 * running, so the change is a protocol between the resizer and each P's holder.
 *
 * <h2>What stays fixed, what moves</h2>
 * {@code Scheduling.allp} has room for {@code maxCarriers} Ps, made when first needed and never
 * dropped: a retired P keeps its counters and latency histograms in the totals, and comes back
 * as the same object when the count grows again (as Go reuses {@code allp[i]}). Two volatile
 * counts describe it: {@code allocated}, the Ps ever made (only grows; every loop that looks for
 * work, timers or counters walks {@code allp[0, allocated)}), and {@code procs}, the active ones,
 * always the lowest ids: {@code allp[0, procs)}. So P0 is never retired ({@code procs >= 1}).
 *
 * <h2>Growing</h2>
 * Under the scheduler lock: Ps are made (before the lock, so that an {@code OutOfMemoryError}
 * changes nothing), {@code allocated} is published (after the Ps and sysmon's watches are
 * written: a reader that reads {@code allocated} first sees them built), then each new P goes on
 * the idle list — or, if it was retired and its holder has not given it up yet, simply stays
 * with that holder, active again — and last {@code procs} is written. After the lock, a
 * {@link Idle#wakeP} starts a spinner, which wakes the next as it finds work (Go's
 * {@code wakep} chain): the new Ps fill up from the global queue and by stealing.
 *
 * <h2>Shrinking</h2>
 * Under the scheduler lock, each P from {@code newProcs} up is marked retired
 * ({@link Processor#setRetired}). An idle one leaves the idle list at once (its queue is empty,
 * the invariant of idle Ps). A held one (or one in transit to a carrier, or retaken by sysmon)
 * is counted in {@link #retiring} and, if a carrier holds it, gets a preemption request, so
 * that a virtual thread running there yields at its next poll. Then {@code procs} is written.
 * <ul>
 *   <li>The <b>holder</b> of a retired P reads {@link Processor#retiredHint} at every schedule
 *       (top of {@code RunLoop.findRunnable}; an opaque read, no fence on the per-task path):
 *       it moves the P's runnext and ring to the global ready lane, then under the lock gives
 *       the P up ({@link Idle#putP}, which sees it retired: not put on the idle list, counted
 *       out of {@link #retiring}) and wakes a carrier for what it moved; then it looks for
 *       another P like any carrier that found nothing (spinner's re-check, then park).</li>
 *   <li>A task running on a retired P may still push to its ring (its lease is still valid):
 *       those tasks go with the rest at the holder's next schedule. Thieves steal from every
 *       held P, retired ones included, so work queued behind a long task does not wait for it.</li>
 *   <li>A carrier <b>blocked</b> in a task on a retired P: sysmon retakes the P as for a hand-off,
 *       but retires it instead of handing it on ({@code HandOff.handOff}).</li>
 *   <li>Every other path that gives a P up (a carrier that failed, a carrier that could not be
 *       started, a waker that found no carrier) goes through {@link Idle#putP}, so a retired P
 *       never reaches the idle list. Invariant: a P is on the idle list iff it is active and
 *       idle; a retired P not given up yet is counted in {@link #retiring}; shutdown's
 *       quiescence and sysmon's "every P idle" both require {@code retiring == 0}.</li>
 *   <li><b>Timers</b>: after the lock, each retired P's heap is closed (an {@link TimerHeap#add}
 *       to it returns null, and {@code Timers.schedule} uses P0 instead), and its timers move
 *       one by one, as they are, to the remaining Ps ({@link TimerHeap#takeForMove},
 *       {@link TimerHeap#addMoved}, waking the timer sleeper if one is now earliest): the
 *       caller's {@code Future} is the timer that moves, so cancelling it later reaches it in
 *       its new heap ({@link Timer}), and a timer is in one heap at a time, so it fires once.</li>
 * </ul>
 *
 * <h2>Memory ordering</h2>
 * Every change of {@code retired}, {@code retiring}, {@code procs}, {@code allocated} and the
 * idle list is made under the scheduler lock; the holder reads the retired flag as a hint and
 * decides under the lock, so the lock orders the two sides. Lock-free readers ({@code snapshot},
 * sysmon, thieves, {@code schedule}) read {@code procs} (volatile) and then index
 * {@code allp[0, procs)} or read {@code allocated} (volatile) and index {@code allp[0, allocated)}:
 * {@code allocated} is written after the Ps it covers and before {@code procs}, so both ranges
 * only ever hold built Ps. A reader that uses a stale {@code procs} sees one P too many or too
 * few for a moment: a retired P is skipped as a thief's victim only if idle (empty), its heap
 * refuses timers, and its counters stay in the totals, so nothing is lost either way.
 *
 * <h2>Failure</h2>
 * {@link #setProcs} throws {@code IllegalArgumentException} (out of bounds) or
 * {@code IllegalStateException} (closed) before changing anything. What can fail allocates: the
 * new Ps, sysmon's watches and the global queue's reserve are made first (the idle list is linked
 * through the Ps and allocates nothing), so an
 * {@code OutOfMemoryError} there reaches the caller with nothing changed. The state changes under
 * the lock allocate nothing. Moving a retired P's timers may fail (an {@code OutOfMemoryError}
 * growing a heap): that is reported ({@link SchedulerFailure.Site#RESIZE}), the timer in hand goes
 * back into the retired P's heap ({@link TimerHeap#putBack}, which allocates nothing), and the
 * timers not moved stay there, which every carrier's search for due timers and the timer sleeper
 * still cover (they walk every allocated P), so they still fire, if later; and sysmon moves them
 * again at its next round ({@link #retryStrandedTimers}), as a carrier under load looks there
 * only when it runs out of work.
 * Checked by {@code ProcResizeTest} (a timer move failing too) and {@code ProcResizeStressTest}.
 */
final class ProcResize {
    private final Scheduling scheduling;
    /**
     * Serialises {@link #setProcs} calls: the timer moves run after the scheduler lock, and must
     * not interleave with a resize that activates the same P again.
     */
    private final ReentrantLock resizing = new CarrierSafeLock();
    /** Retired Ps not given up yet ({@link Processor#retiring}). Under the scheduler lock; volatile for lock-free reads. */
    private volatile int retiring;
    /** A move of a retired P's timers failed: sysmon tries again ({@link #retryStrandedTimers}). */
    private volatile boolean strandedTimers;

    ProcResize(Scheduling scheduling) {
        this.scheduling = scheduling;
    }

    /** Any thread: retired Ps that a carrier (or sysmon, or a hand-over) still has. */
    int retiring() {
        return retiring;
    }

    /**
     * Any thread. Makes {@code procs} Ps active; see the class comment.
     *
     * @throws IllegalArgumentException if {@code procs} is below 1 or above {@code maxCarriers}
     * @throws IllegalStateException    if the scheduler is closed
     */
    void setProcs(int procs) {
        Scheduling s = scheduling;
        if (procs < 1 || procs > s.maxCarriers) {
            throw new IllegalArgumentException("procs must be between 1 and maxCarriers (" + s.maxCarriers
                    + "), was " + procs);
        }
        resizing.lock();
        try {
            // 1. Allocate everything first: an OutOfMemoryError here leaves the scheduler as it was.
            int allocated = s.allocated; // changed only here, under resizing
            Processor[] made = new Processor[Math.max(0, procs - allocated)];
            for (int i = 0; i < made.length; i++) {
                made[i] = s.newProcessor(allocated + i);
            }
            s.sysmon.retake.ensureWatches(procs); // read only for ids below allocated, published below
            s.global.ensureReserve(Math.max(procs, allocated), s.maxCarriers); // room for every P's queue
            int old;
            s.lock.lock();
            try {
                if (s.shutdown.isClosed()) {
                    throw new IllegalStateException("scheduler " + s.name + " is closed");
                }
                old = s.procs;
                // 2. The change: allocates nothing, so it cannot fail half-way.
                if (procs > old) {
                    grow(old, procs, made);
                } else if (procs < old) {
                    shrink(procs, old);
                }
            } finally {
                s.lock.unlock();
            }
            // 3. After the lock: the retired Ps' timers to the remaining Ps, and the parked
            // carriers told of their keep-alive (carriers beyond the new procs are spare now:
            // one that parked untimed while it was not would otherwise never retire); or
            // carriers for the new Ps.
            if (procs < old) {
                for (int i = procs; i < old; i++) {
                    if (!s.timers.move(s.allp[i], procs)) {
                        strandedTimers = true;
                    }
                }
                s.parking.unparkIdleCarriers();
            } else if (procs > old) {
                s.idle.wakeP(); // never throws; the spinner it starts wakes the next one
            }
        } finally {
            resizing.unlock();
            if (s.shutdown.isClosed()) {
                // A close() that came while the timers moved (one in hand is in no heap) waited
                // for this resize: see Shutdown.isQuiescent.
                s.lock.lock();
                try {
                    s.shutdown.signalIfQuiescent();
                } finally {
                    s.lock.unlock();
                }
            }
        }
    }

    /** Any thread: whether a {@link #setProcs} is under way (its timers may be between heaps). */
    boolean isResizing() {
        return resizing.isLocked();
    }

    /** Must hold the lock: activates Ps {@code [old, procs)}; {@code made} the new ones from {@code allocated} on. */
    private void grow(int old, int procs, Processor[] made) {
        Scheduling s = scheduling;
        assert s.lock.isHeldByCurrentThread();
        int allocated = s.allocated;
        for (int i = 0; i < made.length; i++) {
            s.allp[allocated + i] = made[i];
        }
        if (made.length > 0) {
            s.allocated = allocated + made.length; // volatile: publishes the Ps and watches written above
        }
        for (int i = old; i < procs; i++) {
            Processor p = s.allp[i];
            if (p.isRetired()) {
                p.timers.setClosed(false);
                p.setRetired(false);
                if (p.retiring) {
                    p.retiring = false;
                    retiring = retiring - 1;
                    continue; // its holder keeps it, active again
                }
            }
            s.idle.putP(p); // room ensured: cannot fail
        }
        s.procs = procs; // last: lock-free readers index allp[0, procs)
    }

    /** Must hold the lock: retires Ps {@code [procs, old)}. */
    private void shrink(int procs, int old) {
        Scheduling s = scheduling;
        assert s.lock.isHeldByCurrentThread();
        for (int i = procs; i < old; i++) {
            Processor p = s.allp[i];
            p.setRetired(true);
            if (s.idle.takeP(p)) {
                continue; // idle: its queue is empty; its timers move after the lock
            }
            p.retiring = true;
            retiring = retiring + 1;
            Lease lease = p.holder();
            if (lease != null && lease.carrier != null) {
                // A virtual thread running there yields at its next poll; the loop gives the P
                // up at its next schedule in any case (the request only makes that sooner).
                Preemption.request(p, lease);
            }
        }
        s.procs = procs;
    }

    /**
     * Must hold the lock; from {@link Idle#putP}: retired {@code p} was given up by whoever had it.
     */
    void retiredGivenUp(Processor p) {
        assert scheduling.lock.isHeldByCurrentThread();
        if (p.retiring) {
            p.retiring = false;
            retiring = retiring - 1;
        }
    }

    /**
     * Sysmon, at each round while a move failed ({@link #strandedTimers}): moves the timers that
     * a failed move left on retired Ps, unless a resize is under way (it moves them itself).
     * Until then they fire from their retired heap only when some carrier looks there.
     */
    void retryStrandedTimers() {
        Scheduling s = scheduling;
        if (!resizing.tryLock()) {
            return;
        }
        try {
            strandedTimers = false; // a move that fails again sets it again
            int procs = s.procs; // stable: resizes are serialised by the lock we hold
            for (int i = procs, n = s.allocated; i < n; i++) {
                if (!s.allp[i].timers.isEmpty()) {
                    if (!s.timers.move(s.allp[i], procs)) {
                        strandedTimers = true;
                    }
                }
            }
        } finally {
            resizing.unlock();
        }
    }

    /** Any thread: whether a move of a retired P's timers failed and left some behind. */
    boolean hasStrandedTimers() {
        return strandedTimers;
    }

}
