package io.loomgmp.dispatcher;

import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.util.ArrayDeque;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * A carrier without a P (Go's {@code stopm}, {@code mput}/{@code mget} and the M blocked in
 * netpoll until {@code pollUntil}; Tokio's {@code park.rs}). Every step of it is here:
 * <pre>
 * stop(m): 8  give the P up (Idle.putP)
 *          9  a spinner's re-check: "not spinning" first, then every queue and the timers;
 *             work found and a P idle: take it and spin again
 *          10 park: re-check the global queue and the timers, go on the idle-carrier list,
 *             sleep for the timers if nobody does ({@link #offerSleep}), wait for nextP
 * takeNextP: wait for the P a waker hands over ({@link #handTo}); as the timer sleeper, wake at
 *            the earliest timer and take an idle P ({@link #sleepForTimers}); beyond procs,
 *            retire after the keep-alive
 * </pre>
 * It owns the idle-carrier list, the count of carriers, the hand-over of a P to a parked or new
 * carrier ({@link #reserveCarrier}, {@link #handTo}), and the timer sleeper's role. Who wakes a
 * carrier, and when, is {@link Idle}'s; the proof that no wake-up is lost is there too (this class
 * holds the parking side of both pairs: {@link #spinnerRecheck} and {@link #park}).
 *
 * <h2>Why a timer added while the sleeper parks is never slept past</h2>
 * Both sides publish first and look second, each with volatile accesses (so the two store→load
 * pairs are ordered as if sequentially consistent):
 * <pre>
 * adder (Timers.schedule → {@link #wakeSleeperFor})  sleeper ({@link #sleepForTimers})
 *   add the timer to its heap (lock; volatile)      sleeperDeadline = now + delay (volatile)
 *   read sleeper and sleeperDeadline               read every heap's earliest again (Timers.delay)
 *   earlier than the deadline: unpark the sleeper  an earlier one: do not park, recompute
 * </pre>
 * Either the adder sees the new deadline and unparks the sleeper (an unpark before the park makes
 * the park return at once), or the sleeper's second look sees the timer. With no sleeper, the
 * adder wakes a carrier, which parks as the sleeper if it finds nothing to run. jcstress:
 * {@code TimerAddVsSleeperPublish}.
 *
 * <h2>Failure</h2>
 * Nothing here allocates: the idle-carrier list has room for every carrier there can be, and the
 * reservations are made in advance. A parked carrier ends (returns false or null) only once the
 * scheduler has terminated or when it retires; a carrier that fails elsewhere leaves the list and
 * the sleeper's role through {@link #takeCarrier} and {@link #passSleep} ({@code Carriers}).
 * The lists are guarded by the scheduler lock; the counts are volatile copies for lock-free reads.
 */
final class Parking {
    private static final VarHandle SLEEPER;

    static {
        try {
            SLEEPER = MethodHandles.lookup().findVarHandle(Parking.class, "sleeper", Carrier.class);
        } catch (ReflectiveOperationException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    /**
     * A carrier reserved to take a P: a parked one, or ({@code parked == null}) one to start.
     * Made once per carrier ({@link Carrier#reservation}) and once for new ones, so that a wake-up
     * allocates nothing.
     */
    record Reservation(Carrier parked) {
    }

    private static final Reservation NEW_CARRIER = new Reservation(null);

    private final Scheduling scheduling;
    /**
     * Parked carriers, the most recently parked first (the timer sleeper's role goes to the
     * first). Made with room for every carrier there can be ({@code maxCarriers}), so that
     * parking never allocates. Under the lock.
     */
    private final ArrayDeque<Carrier> idleMs;
    private volatile int idleCarriers;
    /** Carriers alive or being started; never above {@code maxCarriers}. Changed under the lock. */
    private volatile int carriers;
    /** Times a carrier parked on the idle list. */
    final LongAdder parks = new LongAdder();
    /** The parked carrier that sleeps until the earliest timer, or null. Set under the lock, cleared by CAS. */
    private volatile Carrier sleeper;
    /** When the timer sleeper wakes up: a {@code System.nanoTime()} value. Written by the sleeper. */
    private volatile long sleeperDeadline;

    Parking(Scheduling scheduling) {
        this.scheduling = scheduling;
        this.idleMs = new ArrayDeque<>(scheduling.maxCarriers);
    }

    // ---------------------------------------------------------------- stopping (Go's stopm)

    /**
     * Carrier {@code m} gives up its P, whose queue is empty (it found nothing, or moved it all to
     * the global queue: {@code moved}), and waits for a P again: steps 8 to 10 of
     * {@code RunLoop.findRunnable}. Returns the P it then holds, or {@code null} once the
     * scheduler has terminated (or {@code m} retired after its keep-alive).
     */
    Processor stop(Carrier m, boolean moved) {
        releaseP(m); // 8.
        if (moved) {
            scheduling.idle.wakeP(); // a retired P's queue went to the global queue: a carrier for it
        }
        // 9. The spinning-to-idle transition.
        if (m.spinning) {
            Processor found = spinnerRecheck(m);
            if (found != null) {
                return found;
            }
        }
        // 10. Park until a waker hands us a P.
        return park(m) ? m.p : null;
    }

    /**
     * Step 8: carrier {@code m}, holding its P in its loop with its queue empty, gives it up: onto
     * the idle list, or counted out if it was retired ({@link Idle#putP}). Takes the lock.
     */
    void releaseP(Carrier m) {
        scheduling.lock.lock();
        try {
            Processor p = m.p;
            m.p = null;
            scheduling.idle.putP(p);
        } finally {
            scheduling.lock.unlock();
        }
    }

    /**
     * Spinner {@code m} found nothing and has given up its P. Publishes "not spinning" FIRST (a
     * volatile RMW, {@link Idle#stopSpinning}), then re-checks every queue and the timers: a
     * submitter that saw {@code m} still spinning did not wake anyone, so its task must be
     * visible to this re-check ({@link Idle}: reversing the two steps loses wake-ups). If there is
     * work and a P is idle, takes that P and spins again (so that finding work wakes the next
     * one; {@link Idle#spinAgain}) and returns the P; else {@code null}.
     */
    Processor spinnerRecheck(Carrier m) {
        Idle idle = scheduling.idle;
        idle.stopSpinning(m);
        // The busy Ps' queues (Idle's busy mask, retired Ps still held among them): an idle P's
        // queue is empty, and a P whose bit this read misses was taken after our decrement, so
        // its holder's submitter sees the decrement and wakes a carrier (Idle's class comment).
        boolean work = !scheduling.global.isEmpty() || idle.anyBusyQueued(null, false)
                || scheduling.timers.anyDue(System.nanoTime());
        if (!work) {
            return null;
        }
        Processor p;
        scheduling.lock.lock();
        try {
            p = idle.getP();
            if (p == null) {
                return null; // every P is busy: their holders will run it
            }
            p.acquire(m);
        } finally {
            scheduling.lock.unlock();
        }
        // The same searcher going on: its count comes back whatever the bound (Idle.spinAgain).
        idle.spinAgain(m, p);
        return p;
    }

    /**
     * Carrier {@code m}, holding no P: parks it on the idle list until a waker hands it a P (then
     * it holds it and this returns true) or the scheduler terminates (returns false).
     */
    boolean park(Carrier m) {
        scheduling.lock.lock();
        try {
            if (scheduling.shutdown.isTerminated()) {
                return false;
            }
            // Our P was published idle (a volatile write) before this read of the global queue:
            // a submitter puts its task and then reads the idle count, so either it sees our idle
            // P and wakes someone, or we see its task here (Idle). The same for a timer that came
            // due, and for a waker that found no carrier to hand a P to (maxCarriers) and gave
            // the P back, leaving its work queued.
            if (!scheduling.global.isEmpty() || scheduling.timers.anyDue(System.nanoTime())) {
                Processor p = scheduling.idle.getP();
                if (p != null) {
                    p.acquire(m);
                    return true;
                }
            }
            putCarrier(m);
            offerSleep(m); // if no carrier sleeps for the timers yet, this one will
        } finally {
            scheduling.lock.unlock();
        }
        parks.increment();
        if (Events.on()) {
            Events.parkStarts(m);
        }
        Processor p = takeNextP(m);
        Events.parkEnded(m);
        if (p == null) {
            return false;
        }
        p.acquire(m);
        if (m.spinning && Events.on()) {
            Events.spinStarted(m); // woken by wakeP to search
        }
        return true;
    }

    /**
     * Waits for the P a waker hands over in {@code m.nextP}, and returns it (not acquired yet).
     * Returns null once the scheduler has terminated, or when {@code m} retired: a carrier beyond
     * {@code procs} that waited a whole keep-alive leaves the idle list and ends.
     */
    Processor takeNextP(Carrier m) {
        long parkedAt = System.nanoTime();
        long keepAliveNanos = scheduling.keepAlive.toNanos();
        Processor p;
        while ((p = m.nextP) == null) {
            // An interrupt of a parked carrier (a task interrupting its own carrier, or anyone
            // else) would make every park below return at once: clear it, as ForkJoinPool does.
            Thread.interrupted();
            if (scheduling.shutdown.isTerminated()) {
                return null;
            }
            if (sleeper == m) {
                p = sleepForTimers(m);
                if (p != null) {
                    return p;
                }
                parkedAt = System.nanoTime();
                continue;
            }
            if (carriers <= scheduling.procs) {
                LockSupport.park(this);
                parkedAt = System.nanoTime(); // the keep-alive counts from when it became spare
                continue;
            }
            long left = keepAliveNanos - (System.nanoTime() - parkedAt);
            if (left > 0) {
                LockSupport.parkNanos(this, left);
                continue;
            }
            scheduling.lock.lock();
            try {
                // Off the idle list under the lock, so no waker can hand us a P afterwards.
                if (m.nextP == null && retire(m)) {
                    m.retired = true;
                    return null;
                }
            } finally {
                scheduling.lock.unlock();
            }
        }
        if (sleeper == m) {
            // Holding a P now, perhaps for a long task: another parked carrier sleeps for the timers.
            scheduling.lock.lock();
            try {
                passSleep(m);
            } finally {
                scheduling.lock.unlock();
            }
        }
        m.nextP = null;
        return p;
    }

    /** Must hold the scheduler lock. An idle carrier leaves the idle list to end (keep-alive over). */
    private boolean retire(Carrier m) {
        assert scheduling.lock.isHeldByCurrentThread();
        if (carriers > scheduling.procs && idleMs.remove(m)) {
            m.parked = false;
            idleCarriers = idleMs.size();
            carriers = carriers - 1;
            return true;
        }
        return false;
    }

    // ---------------------------------------------------------------- the hand-over of a P

    /**
     * Must hold the scheduler lock. Reserves a carrier to hand a P to: a parked one (taken off the
     * idle list), or a new one to start (counted now); {@code null} at the {@code maxCarriers} bound.
     */
    Reservation reserveCarrier() {
        assert scheduling.lock.isHeldByCurrentThread();
        Carrier m = idleMs.poll();
        if (m != null) {
            m.parked = false;
            idleCarriers = idleMs.size();
            return m.reservation;
        }
        if (carriers < scheduling.maxCarriers) {
            carriers = carriers + 1;
            return NEW_CARRIER;
        }
        return null;
    }

    /** Must hold the scheduler lock. Gives back what {@link #reserveCarrier} reserved, unused. */
    void unreserveCarrier(Reservation reserved) {
        assert scheduling.lock.isHeldByCurrentThread();
        if (reserved.parked() == null) {
            carriers = carriers - 1;
        } else {
            putCarrier(reserved.parked());
        }
    }

    /**
     * Hands {@code p} (held by nobody) to the reserved carrier: wakes it, or starts a new one
     * (sysmon does: {@link Carriers#startFor}); returns that carrier, or null if none was
     * started yet. Call without the lock.
     */
    Carrier handTo(Reservation reserved, Processor p, boolean spinning) {
        Carrier m = reserved.parked();
        if (m == null) {
            return scheduling.carriers.startFor(p, spinning); // null if deferred, or all given back if it failed
        }
        m.spinning = spinning; // published by the volatile write below
        m.nextP = p;
        m.unpark();
        return m;
    }

    // ---------------------------------------------------------------- the idle-carrier list

    /** Must hold the scheduler lock. {@code m} is about to park and wait for {@code m.nextP}. */
    void putCarrier(Carrier m) {
        assert scheduling.lock.isHeldByCurrentThread();
        assert !m.parked : "putCarrier: " + m.name + " is already on the idle list";
        m.parked = true;
        idleMs.push(m);
        idleCarriers = idleMs.size();
    }

    /** Must hold the scheduler lock. Takes {@code m} off the idle list, if it is on it (it is ending). */
    void takeCarrier(Carrier m) {
        assert scheduling.lock.isHeldByCurrentThread();
        m.parked = false;
        if (idleMs.remove(m)) {
            idleCarriers = idleMs.size();
        }
    }

    /**
     * Any thread, without the lock held: unparks every parked carrier, so that each looks again
     * at how many carriers there are against {@code procs} (after a shrink, spare ones start their
     * keep-alive; {@link #takeNextP}). A spurious wake-up for each, nothing more. Never throws:
     * should the look at the list fail (out of memory), the spares retire at the next change
     * instead.
     */
    void unparkIdleCarriers() {
        scheduling.lock.lock();
        try {
            for (Carrier m : idleMs) {
                m.unpark();
            }
        } catch (Throwable outOfMemory) {
            // the iterator could not be made: see above
        } finally {
            scheduling.lock.unlock();
        }
    }

    /** Must hold the scheduler lock. Every carrier on the idle list, for shutdown. */
    Carrier[] idleCarrierList() {
        assert scheduling.lock.isHeldByCurrentThread();
        return idleMs.toArray(new Carrier[0]);
    }

    /** Must hold the scheduler lock: a carrier thread ended, or one reserved could not be started. */
    void carrierExited() {
        assert scheduling.lock.isHeldByCurrentThread();
        carriers = carriers - 1;
    }

    int idleCarriers() {
        return idleCarriers;
    }

    /** Carriers alive or being started. */
    int carriers() {
        return carriers;
    }

    // ---------------------------------------------------------------- the timer sleeper

    /**
     * Any thread, after adding a timer due at {@code when} that is now the earliest of its heap
     * (Go's wakeNetPoller): unparks the timer sleeper if it would wake later than {@code when}.
     * Returns false if there is no sleeper: then the adder must see that a carrier wakes.
     */
    boolean wakeSleeperFor(long when) {
        Carrier sleeper = this.sleeper;
        if (sleeper == null) {
            return false;
        }
        if (when - sleeperDeadline < 0) {
            sleeper.unpark();
        }
        return true;
    }

    /**
     * Must hold the scheduler lock; {@code m} was just put on the idle list. If timers exist and no
     * carrier sleeps for them, {@code m} will: it parks until the earliest one.
     */
    private void offerSleep(Carrier m) {
        assert scheduling.lock.isHeldByCurrentThread();
        if (sleeper == null) {
            long now = System.nanoTime();
            long delay = scheduling.timers.delay(now);
            if (delay >= 0) {
                sleeperDeadline = now + delay;
                sleeper = m;
            }
        }
    }

    /** Carrier {@code m} gives up the timer sleeper's role, if it has it. */
    private void stopSleep(Carrier m) {
        if (sleeper == m) {
            SLEEPER.compareAndSet(this, m, null);
        }
    }

    /**
     * Must hold the scheduler lock. Carrier {@code m} stops sleeping for the timers because it
     * has work now (a waker handed it a P, perhaps for a long task), or it fails: the role
     * goes to another parked carrier, if there is one, which is unparked to sleep until the
     * earliest timer. Without this, a sleeper that a hand-off took for a long task left the timers
     * of idle Ps to nobody until some carrier parked again (sysmon's rule for overdue timers is
     * the net below this: see {@code Retake.round}).
     */
    void passSleep(Carrier m) {
        assert scheduling.lock.isHeldByCurrentThread();
        if (sleeper != m) {
            return;
        }
        sleeper = null;
        for (Carrier next : idleMs) { // the most recently parked first: its cache is the warmest
            if (next != m) {
                offerSleep(next);
                if (sleeper == next) {
                    next.unpark(); // its park loop sees the role (takeNextP)
                }
                return;
            }
        }
    }

    /** Any thread: the carrier sleeping for the timers, or null. */
    Carrier sleeper() {
        return sleeper;
    }

    /**
     * Carrier {@code m}, parked on the idle list as the timer sleeper (Go's M blocked in netpoll
     * until {@code pollUntil}): parks until the earliest timer of any P, then takes an idle P to
     * run the due timers, as a spinner. Returns that P, or {@code null} to be called again (woken
     * early by an earlier timer or a waker; or the role was given up: no timers are left, or
     * every P is busy and their holders run the timers at their next schedule).
     */
    private Processor sleepForTimers(Carrier m) {
        Timers timers = scheduling.timers;
        long now = System.nanoTime();
        long delay = timers.delay(now);
        if (delay < 0) {
            stopSleep(m);
            return null;
        }
        if (delay > 0) {
            // Publish the deadline, then look again: a timer added meanwhile either sees the new
            // deadline (and unparks us if it is earlier) or is seen by this second look.
            sleeperDeadline = now + delay;
            long again = timers.delay(System.nanoTime());
            if (again >= 0 && again < delay - (System.nanoTime() - now)) {
                return null; // an earlier timer arrived: recompute
            }
            LockSupport.parkNanos(this, delay);
            return null;
        }
        scheduling.lock.lock();
        try {
            // Handed a P meanwhile, or ending: takeNextP sees it. Or reserved by a waker, which
            // took us off the idle list and hands us a P as soon as it has let the lock go: we
            // must wait for that P rather than take another, or two Ps (and two spinning
            // counts: the waker's and ours) would be ours, and one spinning count would never be
            // given back, so that no wake-up would ever happen again (found by the soak).
            if (m.nextP != null || !m.parked || scheduling.shutdown.isTerminated()) {
                return null;
            }
            Processor p = scheduling.idle.getP();
            if (p == null) {
                stopSleep(m); // every P is busy: their holders run the timers
                return null;
            }
            takeCarrier(m);
            stopSleep(m); // it parks again soon, and offers then; sysmon nets the rest
            scheduling.idle.becomeSpinner(m);
            return p;
        } finally {
            scheduling.lock.unlock();
        }
    }
}
