package io.loomgmp.dispatcher;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which Ps are idle, who is searching, and who gets woken (Tokio's {@code idle.rs}): the idle P
 * list, the count of spinning carriers, and {@link #wakeP} (Go's {@code pidleput}/{@code pidleget},
 * {@code sched.nmspinning} and {@code wakep}/{@code startm}). Every change of the spinning count is
 * made here: {@link #startSpinning}, {@link #spinAgain}, {@link #foundWork}, {@link #stopSpinning},
 * {@link #becomeSpinner} and {@link #spinnerGone}; so is every decision to wake a carrier. A
 * carrier's own {@code spinning} flag follows the count, also in {@code Carriers}: a carrier
 * started for a spinning reservation begins with it set ({@code Carriers.start}), and a failed
 * carrier clears it as it gives its count back through {@link #spinnerGone}
 * ({@code Carriers.recover}). The carrier that is woken, and the whole life of a carrier without a
 * P, is {@link Parking}'s.
 *
 * <h2>The wake-up rule and why no wake-up is lost</h2>
 * New work wakes an idle carrier only when nobody is spinning and a P is idle: a spinning carrier
 * will find the work, and a busy P will run its own queue. The last spinner to find work calls
 * {@link #wakeP} for the rest ({@link #foundWork}). Two pairs of steps, each a store followed by a
 * load, and each ordered as if sequentially consistent, make sure one side always sees the other
 * (a push to a P's ring publishes with release stores, so that submitter fences before it reads:
 * {@code Scheduling.wakeAfterQueueing}):
 * <ul>
 *   <li>A spinner that finds nothing gives up its P, then decrements {@link #spinning}, and only
 *       <em>then</em> re-checks the global queue, every local queue and the timers
 *       ({@link Parking#spinnerRecheck}). A submitter queues its task, <em>then</em> reads
 *       {@link #spinning} ({@link #wakeP}). Either the re-check sees the task, or the submitter
 *       sees the decrement and wakes a carrier (jcstress: {@code WakePVsSpinnerRelease}, for a
 *       global put and for a push to a busy P's ring).</li>
 *   <li>Any carrier that gives up its P publishes it idle ({@link #putP}, a volatile write of the
 *       idle count), and only then checks the global queue and the timers before parking
 *       ({@link Parking#park}). The global queue is lock-free, so its put does not order
 *       itself with the lock: a submitter puts, <em>then</em> reads {@link #idleProcs} in
 *       {@link #wakeP}. Either the carrier sees the task and takes a P back, or the submitter sees
 *       the idle P (jcstress: {@code GlobalPutVsIdleRecheck}).</li>
 * </ul>
 * A task pushed to a local queue is in any case run by that queue's own P, which is busy (it is
 * running the submitter), so even a missed wake-up would make it late, never lost. The timers
 * have a pair of their own, the timer sleeper's ({@link Parking}).
 *
 * <h2>Failure</h2>
 * {@link #wakeP} never throws: a carrier that cannot be started is reported by
 * {@code Carriers.start}, which gives the P and the spinning count back; the work stays queued
 * for a carrier that runs (sysmon wakes one again later). Everything else here only moves
 * objects between lists under the lock.
 *
 * <h2>The spinner bound: at most half the busy Ps search</h2>
 * A carrier becomes a spinner only while {@code 2 * spinning < busy}, where {@code busy} is
 * {@code procs - idleProcs}, the Ps off the idle list, its own among them (Go's rule in
 * {@code findRunnable}: "at most half the busy Ps spin"; more would burn CPU for nothing while
 * the busy ones make the work). The check and the increment are one CAS ({@link #spinIfBelowHalf}),
 * so that carriers that run out of work together cannot all pass the check before any of them
 * counts (Go's check is racy). Every path that makes a new spinner goes through it: a carrier
 * holding a P that found nothing ({@link #startSpinning}) and the timer sleeper that took a P
 * ({@link #becomeSpinner}, which spun unconditionally before). {@link #wakeP} starts one only
 * while none spins (0 to 1, and its P makes {@code busy} at least 1). A spinner whose re-check
 * found work spins again unconditionally ({@link #spinAgain}, as in Go: it is the same searcher
 * going on, whose count was given up a moment before; a refusal there could come from
 * {@link #wakeP}'s tentative count alone, which it gives back at once when it finds no idle P:
 * jcstress {@code WakePVsSpinnerRelease} saw that carrier end up holding a P, not counted, while
 * the waker had backed off). A carrier refused goes on without searching other Ps: it runs its own
 * P's work, the global queue and due timers, and gives the P up when they are empty. No wake-up
 * is lost by a refusal: it means that another spinner is counted, and that spinner re-checks
 * every queue after its own decrement, which comes after the refused CAS read it, so it sees
 * whatever the refused carrier saw. Checked by {@code SpinnerBoundTest}.
 *
 * <h2>Which Ps are busy: the busy mask</h2>
 * One bit per P (Go's {@code idlepMask}, the other way round): set while the P is off the idle
 * list and not a retired P given up, that is, held by a carrier, in transit to one, or retaken by
 * sysmon; clear while it is idle. An idle P's queue is empty (putP's precondition), so whoever
 * looks for work in the Ps' queues (thieves, {@link Stealing}; the search wait,
 * {@code RunLoop.spinForWork}; the spinner's re-check, {@link Parking#spinnerRecheck}) and sysmon
 * ({@code Retake.round}) walk the set bits only: a look costs O(busy Ps + Ps / 64), not O(Ps),
 * however many Ps sit idle. The bits are changed under the scheduler lock with volatile RMWs
 * ({@link ProcMask}; set in {@link #getP}/{@link #takeP} before the P is handed to anyone, cleared
 * in {@link #putP} after its holder let it go) and read without it with volatile loads (plain
 * loads on x86). Why a reader that skips a P whose bit it read clear loses no wake-up: a P's
 * queue gets a task only from its holder, after the bit was set (the set, then the lock or the
 * hand-over's volatile {@code nextP}, then the acquire, then the push); a reader that read the
 * bit clear read it before the set in the synchronization order, so its earlier volatile
 * accesses (a spinner's decrement of {@link #spinning}) precede the submitter's later ones (its
 * read of {@link #spinning} after the push): the submitter sees the decrement and wakes a
 * carrier.
 *
 * <p>The list, linked through the Ps ({@link Processor#idleNext}), and the mask are guarded by the
 * scheduler lock; the count {@link #idleProcs} is a volatile copy for lock-free reads.
 */
final class Idle {

    private final ReentrantLock lock;
    private final Scheduling scheduling;
    /**
     * The idle list's head, the most recently idle P first (Go's {@code sched.pidle}: LIFO, so the
     * P handed out next is the one whose caches are warmest); linked through
     * {@link Processor#idleNext}. Under the lock.
     */
    private Processor idleHead;
    /** Ps on the idle list. Written under the lock; volatile for lock-free reads. */
    private volatile int idleProcs;
    /** The busy mask (see the class comment). Changed under the lock; read without it. */
    private final ProcMask busy;

    /** Carriers searching for work (Go's sched.nmspinning). Changed only by the methods below. */
    private final AtomicInteger spinning = new AtomicInteger();

    Idle(ReentrantLock lock, Scheduling scheduling, int maxProcs) {
        this.lock = lock;
        this.scheduling = scheduling;
        this.busy = new ProcMask(maxProcs);
    }

    /**
     * Must hold the scheduler lock. {@code p}'s queue must be empty; its holder in its loop (or
     * whoever took it: retaken, in transit) lets it go here ({@link Processor#release}). A
     * retired P ({@link ProcResize}) does not go on the idle list: it is counted out of the
     * retiring ones instead. Every path that gives a P up comes here, so an idle-listed P is
     * always an active one. Either way its busy bit is cleared: its queue is empty, and nobody
     * holds it. O(1); allocates nothing (the list is linked through the Ps).
     */
    void putP(Processor p) {
        assert lock.isHeldByCurrentThread();
        assert p.runQueue.isEmpty() : "putP: P " + p.id + " has a non-empty run queue";
        assert !p.onIdleList : "putP: P " + p.id + " is already idle";
        p.release();
        // After the holder's volatile write: a request sysmon made for the task that is gone is
        // either taken here or withdrawn by sysmon, which re-reads the holder after requesting
        // (Preemption.request; jcstress: PreemptRequestVsIdle).
        Preemption.take(p);
        if (p.isRetired()) {
            scheduling.resize.retiredGivenUp(p);
        } else {
            p.idleNext = idleHead;
            p.idlePrev = null;
            if (idleHead != null) {
                idleHead.idlePrev = p;
            }
            idleHead = p;
            p.onIdleList = true;
            idleProcs = idleProcs + 1;
        }
        setBusy(p, false); // after the release: a reader that sees the bit clear finds the P let go
        scheduling.shutdown.signalIfQuiescent();
    }

    /**
     * Exclusive owner of {@code p}, which nobody holds (in transit, retaken, or its holder is
     * failing): moves its queued tasks to the global queue and puts it on the idle list, so that an
     * idle P's queue stays empty. Its timers stay in its heap: every carrier runs other Ps' due
     * timers. Never throws (the global queue's reserve; the idle list has room).
     */
    void giveBack(Processor p) {
        scheduling.moveQueueToGlobal(p);
        lock.lock();
        try {
            putP(p);
        } finally {
            lock.unlock();
        }
    }

    /**
     * Must hold the scheduler lock. Returns an idle P (now held by nobody, its busy bit set), or
     * {@code null}. O(1).
     */
    Processor getP() {
        assert lock.isHeldByCurrentThread();
        Processor p = idleHead;
        if (p != null) {
            unlink(p);
            setBusy(p, true); // before anyone can acquire it and queue work on it
            scheduling.sysmon.wake(); // work is back: sysmon leaves its deep sleep
        }
        return p;
    }

    /**
     * Must hold the scheduler lock. Takes {@code p} off the idle list; false if it is not on it.
     * Its busy bit is set, unless it was retired ({@link ProcResize}: it leaves the list for good
     * and nobody will hold it). O(1).
     */
    boolean takeP(Processor p) {
        assert lock.isHeldByCurrentThread();
        if (!p.onIdleList) {
            return false;
        }
        unlink(p);
        if (!p.isRetired()) {
            setBusy(p, true);
        }
        scheduling.sysmon.wake();
        return true;
    }

    /** Must hold the scheduler lock: {@code p}, on the idle list, leaves it. */
    private void unlink(Processor p) {
        Processor next = p.idleNext;
        Processor prev = p.idlePrev;
        if (prev == null) {
            idleHead = next;
        } else {
            prev.idleNext = next;
        }
        if (next != null) {
            next.idlePrev = prev;
        }
        p.idleNext = null;
        p.idlePrev = null;
        p.onIdleList = false;
        idleProcs = idleProcs - 1;
    }

    int idleProcs() {
        return idleProcs;
    }

    // ---------------------------------------------------------------- the busy mask

    /** Must hold the scheduler lock. A volatile RMW: see the class comment for the pairing. */
    private void setBusy(Processor p, boolean isBusy) {
        if (isBusy) {
            busy.set(p.id);
        } else {
            busy.clear(p.id);
        }
    }

    /**
     * Any thread: word {@code word} of the busy mask (Ps {@code 64 * word} to {@code 64 * word + 63};
     * a set bit: that P is held, in transit or retaken; clear: idle, or a retired P given up, with
     * an empty queue either way). A volatile load. Walk Ps {@code [0, allocated)} as
     * {@code for (w = 0; w < (allocated + 63) >>> 6; w++)} over the set bits of each word.
     */
    long busyWord(int word) {
        return busy.word(word);
    }

    /**
     * Any thread: whether a busy P other than {@code except} has a task in its ring or runnext;
     * with {@code heldOnly}, only a P that a carrier holds (not one in transit or retaken, which a
     * thief skips: the search wait must not see work there that no steal can take, or it would
     * look again at once, over and over, for as long as the P is in transit). Walks the set bits
     * of the busy mask: O(busy Ps + Ps / 64). An idle P is skipped, as its queue is empty (see the
     * class comment for why a stale clear bit loses no wake-up).
     */
    boolean anyBusyQueued(Processor except, boolean heldOnly) {
        Processor[] allp = scheduling.allp;
        int n = scheduling.allocated; // a P made after this read: the next look sees it
        for (int i = busy.next(0, n); i >= 0; i = busy.next(i + 1, n)) {
            Processor other = allp[i];
            if (other != except && (!heldOnly || other.holder() != null) && !other.runQueue.isEmpty()) {
                return true;
            }
        }
        return false;
    }

    /** Any thread: whether P {@code id}'s busy bit is set (see {@link #busyWord}). */
    boolean isBusy(int id) {
        return busy.contains(id);
    }

    // ---------------------------------------------------------------- spinning

    /** Any thread: carriers searching for work now. */
    int spinning() {
        return spinning.get();
    }

    /**
     * Counts one more spinner if fewer than half the busy Ps spin ({@code 2 * spinning < busy},
     * the caller's own P counted busy), and returns whether it did: the check and the increment
     * are one CAS, so the bound holds at every increment however many carriers try at once (see
     * the class comment). Volatile reads of {@code procs} and {@link #idleProcs}, then a volatile
     * CAS: as sequentially consistent as the increment it replaces, which the wake-up pairs rely on.
     */
    private boolean spinIfBelowHalf() {
        while (true) {
            int s = spinning.get();
            if (2 * s >= scheduling.procs - idleProcs) {
                return false;
            }
            if (spinning.compareAndSet(s, s + 1)) {
                return true;
            }
        }
    }

    /**
     * Carrier {@code m}, holding {@code p}, found nothing local: it starts searching other Ps if
     * fewer than half the busy Ps search already ({@link #spinIfBelowHalf}). Returns whether
     * {@code m} is a spinner now (true at once if it already was).
     */
    boolean startSpinning(Carrier m, Processor p) {
        if (m.spinning) {
            return true;
        }
        if (!spinIfBelowHalf()) {
            return false;
        }
        m.spinning = true;
        p.count(Counter.SPINS);
        if (Events.on()) {
            Events.spinStarted(m);
        }
        return true;
    }

    /**
     * Spinner {@code m}, whose re-check after giving up its P found work ({@link Parking#spinnerRecheck}),
     * took {@code p} and searches again, whatever the bound (see the class comment): the count it
     * gave up a moment before comes back, so that finding work wakes the next searcher
     * ({@link #foundWork}).
     */
    void spinAgain(Carrier m, Processor p) {
        m.spinning = true;
        spinning.incrementAndGet();
        p.count(Counter.SPINS);
        if (Events.on()) {
            Events.spinStarted(m);
        }
    }

    /**
     * Must hold the scheduler lock. Timer sleeper {@code m} took an idle P to run due timers: it
     * searches, if fewer than half the busy Ps search already ({@link #spinIfBelowHalf}); else it
     * runs the due timers all the same (every carrier runs other Ps' due timers,
     * {@code RunLoop}'s step 6) without searching further.
     */
    void becomeSpinner(Carrier m) {
        assert lock.isHeldByCurrentThread();
        if (spinIfBelowHalf()) {
            m.spinning = true;
        }
    }

    /** Spinner {@code m} found work: it stops spinning, and the last one wakes another searcher. */
    void foundWork(Carrier m) {
        Events.spinEnded(m, true);
        m.spinning = false;
        if (spinning.decrementAndGet() == 0) {
            wakeP();
        }
    }

    /**
     * Spinner {@code m} found nothing and has given up its P: "not spinning", published first (a
     * volatile RMW), before the re-check of every queue ({@link Parking#spinnerRecheck}).
     */
    void stopSpinning(Carrier m) {
        m.spinning = false;
        spinning.decrementAndGet();
        Events.spinEnded(m, false);
    }

    /** A spinning carrier (or one reserved to spin) is gone without finding work: it failed to start, or failed. */
    void spinnerGone() {
        spinning.decrementAndGet();
    }

    /**
     * Any thread, after queueing work. Starts a spinning carrier on an idle P if nobody is
     * spinning. Go's wakep: at most one spinner is woken per call, and only while none spins (the
     * CAS 0 to 1), so it keeps the spinner bound (the class comment): one spinner on the P it is
     * handed, {@code 2 * 0 < busy}. That spinner, once it finds work, wakes the next one
     * ({@link #foundWork}). Never throws.
     */
    void wakeP() {
        // Fast path, two volatile reads: plain loads on x86.
        if (spinning.get() != 0 || idleProcs == 0) {
            return;
        }
        if (!spinning.compareAndSet(0, 1)) {
            return; // someone else became the spinner
        }
        Parking.Reservation m;
        Processor p;
        lock.lock();
        try {
            p = getP();
            if (p == null) {
                spinning.decrementAndGet(); // every P is busy: they will find the work
                return;
            }
            m = scheduling.parking.reserveCarrier();
            if (m == null) {
                putP(p); // every carrier exists and is busy: their Ps will find the work
                spinning.decrementAndGet();
                return;
            }
        } finally {
            lock.unlock();
        }
        scheduling.parking.handTo(m, p, true); // gives everything back itself if no carrier could be started
    }
}
