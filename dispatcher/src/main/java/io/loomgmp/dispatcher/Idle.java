package io.loomgmp.dispatcher;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.locks.ReentrantLock;

/**
 * Which Ps are idle, who is searching, and who gets woken (Tokio's {@code idle.rs}): the idle P
 * list, the count of spinning carriers, and {@link #wakeP} (Go's {@code pidleput}/{@code pidleget},
 * {@code sched.nmspinning} and {@code wakep}/{@code startm}). Every change of the spinning count is
 * made here: {@link #startSpinning}, {@link #foundWork}, {@link #stopSpinning},
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
 * <p>The list is guarded by the scheduler lock; the count {@link #idleProcs} is a volatile copy
 * for lock-free reads.
 */
final class Idle {

    private final ReentrantLock lock;
    private final Scheduling scheduling;
    /** Replaced (under the lock) only by {@link #ensureRoom}. */
    private ArrayDeque<Processor> idlePs = new ArrayDeque<>();
    /** Ps the idle list holds without growing: {@code ArrayDeque(n)} takes n without a resize. Under the lock. */
    private int idleRoom;
    private volatile int idleProcs;

    /** Carriers searching for work (Go's sched.nmspinning). Changed only by the methods below. */
    private final AtomicInteger spinning = new AtomicInteger();

    Idle(ReentrantLock lock, Scheduling scheduling) {
        this.lock = lock;
        this.scheduling = scheduling;
    }

    /**
     * Must hold the scheduler lock. {@code p}'s queue must be empty; its holder in its loop (or
     * whoever took it: retaken, in transit) lets it go here ({@link Processor#release}). A
     * retired P ({@link ProcResize}) does not go on the idle list: it is counted out of the
     * retiring ones instead. Every path that gives a P up comes here, so an idle-listed P is
     * always an active one. Allocates nothing while the list has the room that
     * {@link #ensureRoom} made.
     */
    void putP(Processor p) {
        assert lock.isHeldByCurrentThread();
        assert p.runQueue.isEmpty() : "putP: P " + p.id + " has a non-empty run queue";
        assert !idlePs.contains(p) : "putP: P " + p.id + " is already idle";
        p.release();
        // After the holder's volatile write: a request sysmon made for the task that is gone is
        // either taken here or withdrawn by sysmon, which re-reads the holder after requesting
        // (Preemption.request; jcstress: PreemptRequestVsIdle).
        Preemption.take(p);
        if (p.isRetired()) {
            scheduling.resize.retiredGivenUp(p);
        } else {
            idlePs.push(p);
            idleProcs = idlePs.size();
        }
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
     * Must hold the scheduler lock. Makes room on the idle P list for {@code procs} Ps, so that
     * {@link #putP} never has to grow it (and so cannot fail) while a resize is half done. May
     * throw an {@code OutOfMemoryError}, changing nothing.
     */
    void ensureRoom(int procs) {
        assert lock.isHeldByCurrentThread();
        if (procs > idleRoom) {
            ArrayDeque<Processor> bigger = new ArrayDeque<>(procs);
            bigger.addAll(idlePs); // the same order
            idlePs = bigger;
            idleRoom = procs;
        }
    }

    /** Must hold the scheduler lock. Returns an idle P (now held by nobody), or {@code null}. */
    Processor getP() {
        assert lock.isHeldByCurrentThread();
        Processor p = idlePs.poll();
        if (p != null) {
            idleProcs = idlePs.size();
            scheduling.sysmon.wake(); // work is back: sysmon leaves its deep sleep
        }
        return p;
    }

    /** Must hold the scheduler lock. Takes {@code p} off the idle list; false if it is not on it. */
    boolean takeP(Processor p) {
        assert lock.isHeldByCurrentThread();
        if (idlePs.remove(p)) {
            idleProcs = idlePs.size();
            scheduling.sysmon.wake();
            return true;
        }
        return false;
    }

    int idleProcs() {
        return idleProcs;
    }

    // ---------------------------------------------------------------- spinning

    private void overHalf() {
        if (2 * spinning.get() > scheduling.procs - idleProcs + 1) ScaleProbe.count(ScaleProbe.C.SPIN_OVER_HALF);
    }

    /** Any thread: carriers searching for work now. */
    int spinning() {
        return spinning.get();
    }

    /** Whether a carrier holding a P that found nothing local may search other Ps: the searchers are kept to half the busy Ps. */
    boolean maySpin(Carrier m) {
        return m.spinning || 2 * spinning.get() < scheduling.procs - idleProcs;
    }

    /** Carrier {@code m}, holding {@code p}, found nothing local and starts searching. */
    void startSpinning(Carrier m, Processor p) {
        m.spinning = true;
        spinning.incrementAndGet();
        p.count(Counter.SPINS);
        if (ScaleProbe.ON) { ScaleProbe.count(ScaleProbe.C.START_SPINNING); overHalf(); }
        if (Events.on()) {
            Events.spinStarted(m);
        }
    }

    /** Must hold the scheduler lock. Timer sleeper {@code m} took an idle P to run due timers: it searches. */
    void becomeSpinner(Carrier m) {
        assert lock.isHeldByCurrentThread();
        m.spinning = true;
        spinning.incrementAndGet();
    }

    /** Spinner {@code m} found work: it stops spinning, and the last one wakes another searcher. */
    void foundWork(Carrier m) {
        Events.spinEnded(m, true);
        m.spinning = false;
        if (spinning.decrementAndGet() == 0) {
            if (ScaleProbe.ON) ScaleProbe.count(ScaleProbe.C.FOUNDWORK_WAKEP);
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
     * spinning. Go's wakep: at most one spinner is woken per call; that spinner, once it finds
     * work, wakes the next one ({@link #foundWork}). Never throws.
     */
    void wakeP() {
        if (ScaleProbe.ON) ScaleProbe.count(ScaleProbe.C.WAKEP_CALLS);
        // Fast path, two volatile reads: plain loads on x86.
        if (spinning.get() != 0 || idleProcs == 0) {
            return;
        }
        if (!spinning.compareAndSet(0, 1)) {
            return; // someone else became the spinner
        }
        if (ScaleProbe.ON) ScaleProbe.count(ScaleProbe.C.WAKEP_SLOW);
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
        if (ScaleProbe.ON) { ScaleProbe.count(ScaleProbe.C.WAKEP_WOKE); overHalf(); }
        scheduling.parking.handTo(m, p, true); // gives everything back itself if no carrier could be started
    }
}
