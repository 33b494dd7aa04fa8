package io.loomgmp.dispatcher;

import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.LongAdder;
import java.util.concurrent.locks.LockSupport;

/**
 * The carriers' life cycle (Go's {@code newm}/{@code mstart}, {@code stopm}, {@code handoffp}
 * and {@code exitsyscall}; Tokio's {@code park.rs}): starting a carrier through the scheduler's
 * {@link ThreadFactory}, parking it on the idle list until a waker hands it a P, sleeping for the
 * timers, retiring it after its keep-alive, taking a P from a carrier blocked in a task and
 * giving it to another ({@link #handOff}), the blocked carrier taking a P back afterwards
 * ({@link #regainP}), and supervision: what happens when a carrier fails ({@link #live}).
 *
 * <h2>Failure model</h2>
 * <ul>
 *   <li><b>A carrier cannot be started</b> (the factory throws or returns null; the OS refuses a
 *       thread): {@link #start} undoes the reservation, moves whatever the P it was to take had
 *       queued (a P retaken for a hand-off may have some) to the global queue, puts the P back
 *       on the idle list and reports the failure. It never throws, so a submission that wakes a
 *       carrier never fails after its task was queued. The work waits for a carrier that runs:
 *       a busy one, or one sysmon wakes again later.</li>
 *   <li><b>A carrier fails outside a task</b> (an {@code OutOfMemoryError} in the loop, a bug):
 *       {@link #live} catches it, puts the task in hand back on the global queue, gives its P
 *       back (its queue moved to the global queue), leaves the idle list and the spinning count,
 *       reports the failure, and the carrier ends. A wake-up then starts another carrier if the
 *       work needs one. So a P always has exactly one holder or sits idle with an empty queue,
 *       and no task is lost.</li>
 *   <li>What a task throws never reaches here: the loop hands it to the uncaught-exception
 *       handler and the carrier goes on.</li>
 * </ul>
 *
 * <p>The factory makes any {@code Thread}, so a carrier is found from its thread through
 * {@link CarrierTable}, which {@link #start} fills and a carrier's end empties.
 */
final class Carriers {
    private final Scheduling scheduling;
    private final ThreadFactory factory;
    private final AtomicInteger seq = new AtomicInteger();
    /** Every carrier whose thread was started and has not ended, for shutdown. */
    private final Set<Carrier> live = ConcurrentHashMap.newKeySet();
    /**
     * Carriers still running a task whose P sysmon handed to another carrier. Changed under the
     * scheduler lock; volatile for snapshots.
     */
    private volatile int detached;
    /** Ps taken from blocked carriers and handed to others. */
    final LongAdder handoffs = new LongAdder();
    /** {@link Processor#deferredStart}: start a carrier for the P; or one that starts spinning. */
    static final int DEFERRED_START = 1;
    static final int DEFERRED_SPINNING_START = 2;
    /** Set after a start was left to sysmon; cleared by sysmon before it looks. */
    private volatile boolean startsDeferred;

    Carriers(Scheduling scheduling, ThreadFactory factory) {
        this.scheduling = scheduling;
        this.factory = factory;
    }

    // ---------------------------------------------------------------- start

    /**
     * {@link #start} on sysmon's thread ({@link #startDeferred}): this returns null at once,
     * and sysmon starts the carrier within microseconds (it is woken). The thread factory is the
     * application's code: it may block, on a contended lock or monitor, or take long. A carrier
     * blocked there would hold its P; a virtual thread (submitting to GMP directly: the JDK pins
     * it only for its own submissions) would unmount and wait in a queue for a carrier, while the
     * P it reserved sat in transit and the spinning count it took held back every wake-up: with
     * the other carriers parked, nothing ever ran again (the soak's stall after 326 s). Sysmon
     * holds no P, and the carriers go on meanwhile. Inline on sysmon's own thread (its hand-offs
     * and wake-ups), and when sysmon is off (the tests' deterministic mode) or its thread is gone.
     * Never throws.
     */
    Carrier startFor(Processor p, boolean spinning) {
        Sysmon sysmon = scheduling.sysmon;
        if (!sysmon.enabled || Thread.currentThread() == sysmon.thread() || !sysmon.thread().isAlive()) {
            return start(p, spinning);
        }
        // The P's field, then the flag: sysmon clears the flag before it reads the fields, so a
        // start it misses leaves the flag set for its next look (volatile, sequentially consistent).
        p.deferredStart = spinning ? DEFERRED_SPINNING_START : DEFERRED_START;
        startsDeferred = true;
        sysmon.wakeForStarts();
        return null;
    }

    /** Sysmon's thread: starts the carriers left to it ({@link #startFor}). Never throws. */
    void startDeferred() {
        if (!startsDeferred) {
            return;
        }
        startsDeferred = false;
        for (int i = 0, n = scheduling.allocated; i < n; i++) {
            Processor p = scheduling.allp[i];
            int deferred = p.deferredStart;
            if (deferred != 0) {
                p.deferredStart = 0;
                start(p, deferred == DEFERRED_SPINNING_START); // gives everything back itself if it fails
            }
        }
    }

    /**
     * Starts a carrier that will take {@code p} (held by nobody), and returns it; the caller has
     * reserved it in the carrier count. Returns null if no thread could be had: then the
     * reservation is undone, {@code p}'s queue has moved to the global queue, {@code p} is idle,
     * a spinning reservation is given back, and the failure is reported. Never throws.
     */
    Carrier start(Processor p, boolean spinning) {
        Carrier m = null;
        // A carrier that starts another one waits in the kernel until it runs, for 100 µs or more
        // on a loaded machine: it must not look blocked in its task to sysmon meanwhile.
        Carrier starter = scheduling.currentCarrierThread();
        if (starter != null) {
            starter.startingCarrier = true;
        }
        try {
            // Everything that allocates is in here: an OutOfMemoryError is one more way to fail.
            m = new Carrier(scheduling, scheduling.name + "-M" + seq.getAndIncrement());
            m.spinning = spinning; // published by Thread.start
            m.nextP = p;
            Thread thread = factory.newThread(m);
            if (thread == null) {
                throw new IllegalStateException("the carrier thread factory returned null");
            }
            if (thread.getState() != Thread.State.NEW) {
                throw new IllegalStateException("the carrier thread factory returned a started thread: " + thread);
            }
            m.thread = thread;
            CarrierTable.register(m);
            live.add(m);
            thread.start();
            return m;
        } catch (Throwable failure) { // OutOfMemoryError: unable to create native thread, and the like
            startFailed(m, p, spinning, failure);
            return null;
        } finally {
            if (starter != null) {
                starter.startingCarrier = false;
            }
        }
    }

    /**
     * Undoes what {@link #start} reserved and began: {@code m} (null if not even made) never ran.
     * Never throws; each step stands on its own, with whatever memory is left.
     */
    private void startFailed(Carrier m, Processor p, boolean spinning, Throwable failure) {
        if (m != null) {
            m.nextP = null;
        }
        giveBack(p); // allocates nothing (the global queue's reserve)
        scheduling.lock.lock();
        try {
            scheduling.idle.carrierExited();
        } finally {
            scheduling.lock.unlock();
        }
        // Only after the count: close() joins the carriers in live and then finds the count
        // final (see live()).
        if (m != null && m.thread != null) {
            try {
                live.remove(m);
                CarrierTable.unregister(m);
            } catch (Throwable outOfMemory) {
                // The table keeps an entry for a thread that never started: it finds no carrier that runs.
            }
        }
        if (spinning) {
            scheduling.idle.spinnerGone();
        }
        scheduling.failures.report(SchedulerFailure.Site.CARRIER_START, failure,
                "the P stays idle and its work waits on the global queue for a running carrier");
    }

    /**
     * Exclusive owner of {@code p}, which nobody holds (in transit, or its holder is failing):
     * moves its queued tasks to the global queue and puts it on the idle list, so that an idle P's
     * queue stays empty. Its timers stay in its heap: every carrier runs other Ps' due timers.
     */
    private void giveBack(Processor p) {
        scheduling.moveQueueToGlobal(p);
        scheduling.lock.lock();
        try {
            p.holder = null;
            scheduling.idle.putP(p);
        } finally {
            scheduling.lock.unlock();
        }
    }

    // ---------------------------------------------------------------- life and supervision

    /** The carrier thread's whole life; any failure outside a task ends it cleanly. */
    void live(Carrier m) {
        try {
            scheduling.loop.run(m);
        } catch (Throwable failure) {
            recover(m, failure);
        } finally {
            // Counted out (and off the idle list) before it leaves live: close() joins every
            // carrier in live, so once it returns the count is final. The other order let a
            // carrier leave live, close() return, and a snapshot still count it.
            scheduling.lock.lock();
            try {
                scheduling.idle.takeCarrier(m); // ended while parked: after termination
                if (!m.retired) {
                    scheduling.idle.carrierExited();
                }
            } finally {
                scheduling.lock.unlock();
            }
            CarrierTable.unregister(m);
            live.remove(m);
        }
    }

    /**
     * Carrier {@code m}, on its own thread, failed outside a task: gives back everything it holds
     * (see the failure model above), reports it, and returns so that the carrier ends. Runs with
     * whatever memory is left; every step is independent of the ones before it.
     */
    private void recover(Carrier m, Throwable failure) {
        try {
            Runnable task = m.inHand;
            m.inHand = null;
            m.running = null;
            if (task != null) {
                scheduling.global.putMoved(task); // accepted work: queued even if closed; never fails
            }
            if (m.spinning) {
                m.spinning = false;
                scheduling.idle.spinnerGone();
            }
            Processor p = m.p;
            if (p != null) {
                if (p.holder == m.inTask) {
                    p.leaveTask(m); // fails only if sysmon retook it: then it is not ours
                }
                if (p.holder == m.inLoop) {
                    m.p = null;
                    giveBack(p);
                }
            }
            scheduling.lock.lock();
            try {
                if (m.detachedFromP) {
                    m.detachedFromP = false;
                    detached = detached - 1;
                }
                if (m.parked) {
                    scheduling.idle.takeCarrier(m);
                }
                scheduling.timers.passSleep(m); // allocates nothing
            } finally {
                scheduling.lock.unlock();
            }
            Processor handed = m.nextP;
            m.nextP = null;
            if (handed != null) {
                giveBack(handed);
            }
            scheduling.lock.lock();
            try {
                scheduling.shutdown.signalIfQuiescent();
            } finally {
                scheduling.lock.unlock();
            }
        } finally {
            scheduling.failures.report(SchedulerFailure.Site.CARRIER, failure,
                    "carrier " + m.name + " handed its P and its work back and ended");
            scheduling.idle.wakeP(); // another carrier for the work it gave back
        }
    }

    // ---------------------------------------------------------------- P hand-over

    /**
     * Must hold the lock, or own {@code p} exclusively (just handed over): either way {@code p}
     * is held by nobody ({@link Lease}: only the lock holder, or the carrier it was handed to,
     * turns a null holder into {@code m.inLoop}).
     */
    static void acquire(Carrier m, Processor p) {
        assert p.holder == null : "acquire: P " + p.id + " is held by " + p.holder;
        p.holder = m.inLoop;
        m.p = p;
    }

    /**
     * Sysmon: takes {@code p} from carrier {@code m}, blocked in a task, and hands it to an idle
     * carrier or a new one, which it returns. Returns null, changing nothing, if no carrier can be
     * had (all {@code maxCarriers} exist and none is idle) or {@code m} is no longer in that task;
     * also null if a new carrier could not be started (then {@code p}'s work went to the global
     * queue and {@code p} is idle: see {@link #start}); and null when {@code p} was retired
     * ({@link ProcResize}): then it was taken and given up, its queue on the global queue.
     */
    Carrier handOff(Processor p, Carrier m) {
        Idle.Reservation carrier = null;
        boolean retired;
        scheduling.lock.lock();
        try {
            if (scheduling.shutdown.isTerminated()) {
                return null;
            }
            // A retired P (ProcResize) is not handed on: taken from the blocked carrier, its
            // queue goes to the global queue and it is given up, as its holder would at its next
            // schedule. No carrier is needed for that.
            retired = p.isRetired();
            if (!retired) {
                carrier = scheduling.idle.reserveCarrier();
                if (carrier == null) {
                    return null;
                }
            }
            if (!p.retake(m)) {
                if (carrier != null) {
                    scheduling.idle.unreserveCarrier(carrier);
                }
                return null;
            }
            p.holder = null; // in transit to the reserved carrier, or exclusively ours if retired
            detached = detached + 1; // until m's task returns (regainP)
            m.detachedFromP = true;
            handoffs.increment(); // before the P can run anything: snapshots see it first
        } finally {
            scheduling.lock.unlock();
        }
        if (retired) {
            giveBack(p); // queue to the global queue; Idle.putP counts the retired P out
            scheduling.idle.wakeP();
            return null;
        }
        return scheduling.idle.handTo(carrier, p, false);
    }

    /**
     * Sysmon handed {@code m}'s P to another carrier while {@code m}'s task was blocked (Go's
     * exitsyscall). Takes that P back if it is idle, else any idle P; else parks as an idle
     * carrier until handed one. Returns false if {@code m} should end instead.
     */
    boolean regainP(Carrier m) {
        Processor old = m.p;
        scheduling.lock.lock();
        try {
            detached = detached - 1;
            m.detachedFromP = false;
            Idle idle = scheduling.idle;
            Processor p = idle.takeP(old) ? old : idle.getP();
            if (p != null) {
                acquire(m, p);
                return true;
            }
            m.p = null;
            scheduling.shutdown.signalIfQuiescent(); // close() may be waiting for this task to return
        } finally {
            scheduling.lock.unlock();
        }
        return park(m);
    }

    /** Carriers still in a task whose P was handed off. */
    int detached() {
        return detached;
    }

    // ---------------------------------------------------------------- parking

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
                    acquire(m, p);
                    return true;
                }
            }
            scheduling.idle.putCarrier(m);
            scheduling.timers.offerSleep(m); // if no carrier sleeps for the timers yet, this one will
        } finally {
            scheduling.lock.unlock();
        }
        scheduling.idle.parks.increment();
        if (Events.on()) {
            Events.parkStarts(m);
        }
        Processor p = takeNextP(m);
        Events.parkEnded(m);
        if (p == null) {
            return false;
        }
        acquire(m, p);
        if (m.spinning && Events.on()) {
            Events.spinStarted(m); // woken by wakeP to search
        }
        return true;
    }

    /**
     * Waits for the P a waker hands over in {@code m.nextP}. Returns null once the scheduler has
     * terminated, or when {@code m} retired: a carrier beyond {@code procs} that waited a whole
     * keep-alive leaves the idle list and ends.
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
            if (scheduling.timers.isSleeper(m)) {
                p = scheduling.timers.sleepForTimers(m);
                if (p != null) {
                    return p;
                }
                parkedAt = System.nanoTime();
                continue;
            }
            if (scheduling.idle.carriers() <= scheduling.procs) {
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
                if (m.nextP == null && scheduling.idle.retire(m)) {
                    m.retired = true;
                    return null;
                }
            } finally {
                scheduling.lock.unlock();
            }
        }
        if (scheduling.timers.isSleeper(m)) {
            // Holding a P now, perhaps for a long task: another parked carrier sleeps for the timers.
            scheduling.lock.lock();
            try {
                scheduling.timers.passSleep(m);
            } finally {
                scheduling.lock.unlock();
            }
        }
        m.nextP = null;
        return p;
    }


    // ---------------------------------------------------------------- shutdown

    /** After termination: wakes every carrier that is still alive and waits for each to end. */
    boolean joinAll() {
        boolean interrupted = false;
        List<Carrier> carriers = new ArrayList<>(live);
        for (Carrier m : carriers) {
            m.unpark();
        }
        for (Carrier m : carriers) {
            interrupted |= Shutdown.joinUninterruptibly(m.thread);
        }
        return interrupted;
    }

    /** The default factory: daemon platform threads named {@code <name>-M<n>}, in order of creation. */
    static ThreadFactory defaultFactory(String name) {
        return Thread.ofPlatform().daemon().name(name + "-M", 0).inheritInheritableThreadLocals(false).factory();
    }
}
